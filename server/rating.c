/*
 * rating.c — Glicko-2, step by step as in Glickman's paper (the step
 * numbers below are his), with the Illinois variant of regula falsi for
 * the new volatility (his step 5.1 .. 5.5).
 */
#include <math.h>
#include <string.h>

#include "rating.h"
#include "ruleset.h"

#define GLICKO_SCALE 173.7178         /* 400 / ln(10): Glicko <-> Glicko-2 scale */
#define VOL_EPSILON 0.000001          /* convergence of step 5 */
#define VOL_ITER_MAX 100              /* the iteration converges in a handful */

static double g_of(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

static double expect_of(double mu, double mu_j, double phi_j)
{
	return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

static bool rating_ok(const struct rating *p)
{
	return isfinite(p->r) && isfinite(p->rd) && isfinite(p->vol) && p->rd > 0 && p->vol > 0;
}

/* Step 5: the new volatility sigma'. */
static double new_vol(double phi, double sigma, double delta, double v, double tau)
{
	double a = log(sigma * sigma), d2 = delta * delta, p2 = phi * phi;
#define F(x) (exp(x) * (d2 - p2 - v - exp(x)) / (2.0 * (p2 + v + exp(x)) * (p2 + v + exp(x))) - \
              ((x) - a) / (tau * tau))
	double A = a, B, fa, fb;
	if (d2 > p2 + v) {
		B = log(d2 - p2 - v);
	} else {
		int k = 1;
		while (F(a - k * tau) < 0 && k < VOL_ITER_MAX)
			k++;
		B = a - k * tau;
	}
	fa = F(A);
	fb = F(B);
	for (int i = 0; i < VOL_ITER_MAX && fabs(B - A) > VOL_EPSILON; i++) {
		double C = A + (A - B) * fa / (fb - fa), fc = F(C);
		if (fc * fb <= 0) {
			A = B;
			fa = fb;
		} else {
			fa /= 2.0;
		}
		B = C;
		fb = fc;
	}
#undef F
	return exp(A / 2.0);
}

int rating_update(const struct rating *p, const struct rating_game *games, size_t n,
                  double tau, struct rating *out)
{
	if (!rating_ok(p) || !(tau > 0) || (n > 0 && games == NULL))
		return -1;
	/* Step 2: to the Glicko-2 scale. */
	double mu = (p->r - 1500.0) / GLICKO_SCALE, phi = p->rd / GLICKO_SCALE;
	if (n == 0) {
		/* Step 6 alone: the deviation grows by the volatility. */
		*out = *p;
		out->rd = sqrt(phi * phi + p->vol * p->vol) * GLICKO_SCALE;
		return 0;
	}
	/* Steps 3 and 4: the estimated variance v and the improvement delta. */
	double inv_v = 0, sum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rating_game *gm = &games[i];
		if (!rating_ok(&gm->opp) || !(gm->score >= 0 && gm->score <= 1))
			return -1;
		double mu_j = (gm->opp.r - 1500.0) / GLICKO_SCALE, phi_j = gm->opp.rd / GLICKO_SCALE;
		double gj = g_of(phi_j), e = expect_of(mu, mu_j, phi_j);
		inv_v += gj * gj * e * (1.0 - e);
		sum += gj * (gm->score - e);
	}
	double v = 1.0 / inv_v, delta = v * sum;
	/* Step 5, then 6 and 7: the pre-period deviation and the new values. */
	double sigma = new_vol(phi, p->vol, delta, v, tau);
	double phi_star = sqrt(phi * phi + sigma * sigma);
	double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	double mu_new = mu + phi_new * phi_new * sum;
	/* Step 8: back to the Glicko scale. */
	out->r = GLICKO_SCALE * mu_new + 1500.0;
	out->rd = GLICKO_SCALE * phi_new;
	out->vol = sigma;
	return rating_ok(out) ? 0 : -1;
}

int rating_game(const struct rating *a, const struct rating *b, double sa, struct rating *a_out,
                struct rating *b_out)
{
	struct rating_game ga = { *b, sa }, gb = { *a, 1.0 - sa };
	struct rating na, nb;
	if (rating_update(a, &ga, 1, RATING_TAU, &na) != 0 ||
	    rating_update(b, &gb, 1, RATING_TAU, &nb) != 0)
		return -1;
	if (na.rd < RATING_RD_MIN)
		na.rd = RATING_RD_MIN;
	if (nb.rd < RATING_RD_MIN)
		nb.rd = RATING_RD_MIN;
	*a_out = na;
	*b_out = nb;
	return 0;
}

static const struct {
	const char *rules, *pool;
} pools[] = {
	{ "icc", "icc" }, { "nost", "icc" },
	{ "english", "english" }, { "insurance", "english" }, { "gollon", "english" },
};

const char *rating_pool(const char *rules)
{
	for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++)
		if (strcmp(rules, pools[i].rules) == 0)
			return pools[i].pool;
	return rules;
}

const char *rating_pool_at(size_t i)
{
	/* Every rule set is its own pool but those the table gives another's:
	 * the pools are the rule sets that are their own, in the registry's
	 * order (the table alone named only icc and english, and `who` and
	 * `profile` left out everyone's berkeley, rand, ... ratings). */
	const struct ruleset *rs;
	for (size_t k = 0, n = 0; (rs = ruleset_at(k)) != NULL; k++)
		if (strcmp(rating_pool(rs->name), rs->name) == 0 && n++ == i)
			return rs->name;
	return NULL;
}

struct rating rating_initial(void)
{
	return (struct rating){ RATING_DEFAULT, RATING_RD_DEFAULT, RATING_VOL_DEFAULT };
}

bool rating_provisional(const struct rating *p)
{
	return p->rd > RATING_PROVISIONAL_RD;
}
