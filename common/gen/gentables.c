/*
 * gentables.c — build-time generator of the rules core's constant tables.
 *
 * The core may hold no mutable globals, yet fast move generation wants
 * lookup tables (magic bitboards, leaper attacks, between/line masks,
 * Zobrist keys).  Computing them here, once, at build time and emitting
 * them as `const` C arrays gives both: the tables live in read-only data
 * and nothing is initialised at run time.
 *
 * Output (stdout): a C fragment included by common/attacks.c only.
 * Deterministic: a fixed-seed PRNG drives the magic search and the keys,
 * so every build produces the same file (and the same Zobrist keys).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint64_t bb;

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

/* splitmix64: a small, well-mixed, deterministic generator. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t rng_sparse(void)
{
	return rng_next() & rng_next() & rng_next();
}

static int on_board(int f, int r)
{
	return f >= 0 && f < 8 && r >= 0 && r < 8;
}

/* Sliding attacks computed the slow way, along each direction. */
static bb slide(int sq, bb occ, const int dirs[4][2])
{
	bb out = 0;
	for (int d = 0; d < 4; d++) {
		int f = (sq & 7) + dirs[d][0], r = (sq >> 3) + dirs[d][1];
		while (on_board(f, r)) {
			int s = r * 8 + f;
			out |= 1ULL << s;
			if (occ & (1ULL << s))
				break;
			f += dirs[d][0];
			r += dirs[d][1];
		}
	}
	return out;
}

static const int ROOK_DIRS[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
static const int BISHOP_DIRS[4][2] = { { 1, 1 }, { 1, -1 }, { -1, 1 }, { -1, -1 } };

/* Relevant occupancy: the rays without their last square. */
static bb relevant_mask(int sq, const int dirs[4][2])
{
	bb out = 0;
	for (int d = 0; d < 4; d++) {
		int f = (sq & 7) + dirs[d][0], r = (sq >> 3) + dirs[d][1];
		while (on_board(f + dirs[d][0], r + dirs[d][1])) {
			out |= 1ULL << (r * 8 + f);
			f += dirs[d][0];
			r += dirs[d][1];
		}
	}
	return out;
}

static int popcount(bb x)
{
	return __builtin_popcountll(x);
}

struct magic_out {
	bb mask, magic;
	unsigned shift, offset;
};

#define ROOK_TABLE 102400
#define BISHOP_TABLE 5248

static bb rook_table[ROOK_TABLE];
static bb bishop_table[BISHOP_TABLE];

/* Find a magic for one square and fill its slice of the table. */
static void find_magic(int sq, const int dirs[4][2], struct magic_out *mo, bb *table,
                       unsigned *offset)
{
	static bb occs[4096], atts[4096], used[4096];
	static unsigned epoch[4096];
	static unsigned cur_epoch;
	bb mask = relevant_mask(sq, dirs);
	int bits = popcount(mask);
	int n = 1 << bits;
	/* Carry-Rippler enumeration of all subsets of the mask. */
	bb sub = 0;
	for (int i = 0; i < n; i++) {
		occs[i] = sub;
		atts[i] = slide(sq, sub, dirs);
		sub = (sub - mask) & mask;
	}
	for (;;) {
		bb magic = rng_sparse();
		if (popcount((mask * magic) & 0xFF00000000000000ULL) < 6)
			continue;
		cur_epoch++;
		int ok = 1;
		for (int i = 0; i < n && ok; i++) {
			unsigned idx = (unsigned)((occs[i] * magic) >> (64 - bits));
			if (epoch[idx] != cur_epoch) {
				epoch[idx] = cur_epoch;
				used[idx] = atts[i];
			} else if (used[idx] != atts[i]) {
				ok = 0;
			}
		}
		if (!ok)
			continue;
		mo->mask = mask;
		mo->magic = magic;
		mo->shift = (unsigned)(64 - bits);
		mo->offset = *offset;
		for (int i = 0; i < n; i++) {
			unsigned idx = (unsigned)((occs[i] * magic) >> (64 - bits));
			table[*offset + idx] = atts[i];
		}
		*offset += (unsigned)n;
		return;
	}
}

static void emit_array(const char *decl, const bb *v, int n)
{
	printf("%s = {\n", decl);
	for (int i = 0; i < n; i++)
		printf("0x%016" PRIx64 "ULL,%s", v[i], (i % 4 == 3) ? "\n" : " ");
	printf("};\n\n");
}

static void emit_magics(const char *name, const char *table, const struct magic_out *m)
{
	printf("const struct bb_magic %s[64] = {\n", name);
	for (int sq = 0; sq < 64; sq++)
		printf("{ 0x%016" PRIx64 "ULL, 0x%016" PRIx64 "ULL, %s + %u, %u },\n", m[sq].mask,
		       m[sq].magic, table, m[sq].offset, m[sq].shift);
	printf("};\n\n");
}

static bb leaper(int sq, const int (*d)[2], int n)
{
	bb out = 0;
	for (int i = 0; i < n; i++) {
		int f = (sq & 7) + d[i][0], r = (sq >> 3) + d[i][1];
		if (on_board(f, r))
			out |= 1ULL << (r * 8 + f);
	}
	return out;
}

int main(void)
{
	static const int KN[8][2] = { { 1, 2 }, { 2, 1 }, { 2, -1 }, { 1, -2 },
		                      { -1, -2 }, { -2, -1 }, { -2, 1 }, { -1, 2 } };
	static const int KG[8][2] = { { 1, 0 }, { 1, 1 }, { 0, 1 }, { -1, 1 },
		                      { -1, 0 }, { -1, -1 }, { 0, -1 }, { 1, -1 } };
	static const int WP[2][2] = { { -1, 1 }, { 1, 1 } };
	static const int BP[2][2] = { { -1, -1 }, { 1, -1 } };
	static bb knight[64], king[64], pawn[128];
	static bb between[64 * 64], line[64 * 64];
	static struct magic_out rm[64], bm[64];

	for (int sq = 0; sq < 64; sq++) {
		knight[sq] = leaper(sq, KN, 8);
		king[sq] = leaper(sq, KG, 8);
		pawn[sq] = leaper(sq, WP, 2);
		pawn[64 + sq] = leaper(sq, BP, 2);
	}
	for (int a = 0; a < 64; a++) {
		for (int b = 0; b < 64; b++) {
			bb ab = (1ULL << a) | (1ULL << b);
			if (a == b)
				continue;
			const int (*dirs)[2] = NULL;
			if (slide(a, 0, ROOK_DIRS) & (1ULL << b))
				dirs = ROOK_DIRS;
			else if (slide(a, 0, BISHOP_DIRS) & (1ULL << b))
				dirs = BISHOP_DIRS;
			if (!dirs)
				continue;
			between[a * 64 + b] = slide(a, ab, dirs) & slide(b, ab, dirs);
			line[a * 64 + b] = (slide(a, 0, dirs) & slide(b, 0, dirs)) | ab;
		}
	}
	unsigned roff = 0, boff = 0;
	for (int sq = 0; sq < 64; sq++)
		find_magic(sq, ROOK_DIRS, &rm[sq], rook_table, &roff);
	for (int sq = 0; sq < 64; sq++)
		find_magic(sq, BISHOP_DIRS, &bm[sq], bishop_table, &boff);
	if (roff != ROOK_TABLE || boff != BISHOP_TABLE) {
		fprintf(stderr, "gentables: table sizes %u/%u unexpected\n", roff, boff);
		return 1;
	}

	/* Zobrist: 12 x 64 piece-square keys, 16 castling, 8 en-passant files, side. */
	static bb zpsq[12 * 64], zcastle[16], zep[8];
	rng_state = 0x4B52494547ULL; /* "KRIEG": keys independent of the magic search */
	for (int i = 0; i < 12 * 64; i++)
		zpsq[i] = rng_next();
	bb zc[4];
	for (int i = 0; i < 4; i++)
		zc[i] = rng_next();
	/* The castling key of a set of rights is the xor of its rights' keys,
	 * so removing one right is one xor of the two table entries. */
	for (int r = 0; r < 16; r++) {
		zcastle[r] = 0;
		for (int i = 0; i < 4; i++)
			if (r & (1 << i))
				zcastle[r] ^= zc[i];
	}
	for (int i = 0; i < 8; i++)
		zep[i] = rng_next();
	bb zside = rng_next();
	/* Reserve keys (crazykrieg), drawn after all the others so that those
	 * stay what they were: 2 colours x 5 types x counts 1..16. */
	static bb zhand[2 * 5 * 16];
	for (int i = 0; i < 2 * 5 * 16; i++)
		zhand[i] = rng_next();

	printf("/* Generated by common/gen/gentables.c — do not edit. */\n\n");
	emit_array("const bb_t bb_knight_table[64]", knight, 64);
	emit_array("const bb_t bb_king_table[64]", king, 64);
	emit_array("const bb_t bb_pawn_table[128]", pawn, 128);
	emit_array("const bb_t bb_between_table[4096]", between, 64 * 64);
	emit_array("const bb_t bb_line_table[4096]", line, 64 * 64);
	emit_array("static const bb_t rook_attack_table[102400]", rook_table, ROOK_TABLE);
	emit_array("static const bb_t bishop_attack_table[5248]", bishop_table, BISHOP_TABLE);
	emit_magics("bb_rook_magics", "rook_attack_table", rm);
	emit_magics("bb_bishop_magics", "bishop_attack_table", bm);
	emit_array("const uint64_t zobrist_psq_table[768]", zpsq, 12 * 64);
	emit_array("const uint64_t zobrist_castle_table[16]", zcastle, 16);
	emit_array("const uint64_t zobrist_ep_table[8]", zep, 8);
	printf("const uint64_t zobrist_side_key = 0x%016" PRIx64 "ULL;\n", zside);
	emit_array("const uint64_t zobrist_hand_table[160]", zhand, 2 * 5 * 16);
	return 0;
}
