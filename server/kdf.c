/*
 * kdf.c — scrypt password hashes, resume tokens and their digests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "kdf.h"

static const char B64_STD[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char B64_URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t kdf_b64_encode(const uint8_t *in, size_t n, int url, char *out)
{
	const char *a = url ? B64_URL : B64_STD;
	size_t o = 0, i = 0;

	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
		out[o++] = a[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
	}
	out[o] = '\0';
	return o;
}

static int b64_value(char c, int url)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == (url ? '-' : '+'))
		return 62;
	if (c == (url ? '_' : '/'))
		return 63;
	return -1;
}

int kdf_b64_decode(const char *in, size_t len, int url, uint8_t *out, size_t outmax)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t o = 0;

	/* A length of 1 mod 4 cannot come from any byte string. */
	if (len % 4 == 1)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int v = b64_value(in[i], url);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= outmax)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* Canonical form only: the unused low bits must be zero, so one
	 * hash has exactly one encoding. */
	if (acc != 0)
		return -1;
	return (int)o;
}

static int scrypt(const char *pw, size_t pwlen, const struct kdf_params *p, uint8_t *out)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "SCRYPT", NULL);
	EVP_KDF_CTX *ctx = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
	uint64_t n = (uint64_t)1 << p->ln;
	uint32_t r = (uint32_t)p->r, par = (uint32_t)p->p;
	/* 128*r*N for V plus 256*r*p for B, with room to spare. */
	uint64_t maxmem = 130ull * (uint64_t)p->r * n + 256ull * p->r * p->p + (1u << 20);
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)pw, pwlen),
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)p->salt,
		                                  KDF_SALT_LEN),
		OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
		OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
		OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &par),
		OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
		OSSL_PARAM_construct_end(),
	};
	int rc = -1;

	if (ctx != NULL && EVP_KDF_derive(ctx, out, KDF_HASH_LEN, params) == 1)
		rc = 0;
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
	return rc;
}

int kdf_hash(const char *pw, size_t pwlen, int ln, char *out, size_t outlen)
{
	struct kdf_params p = { .ln = ln, .r = KDF_R, .p = KDF_P };
	char salt[KDF_SALT_LEN * 2], hash[KDF_HASH_LEN * 2];
	int n;

	if (ln < KDF_LN_MIN || ln > KDF_LN_MAX)
		return -1;
	if (RAND_bytes(p.salt, KDF_SALT_LEN) != 1)
		return -1;
	if (scrypt(pw, pwlen, &p, p.hash) != 0)
		return -1;
	kdf_b64_encode(p.salt, KDF_SALT_LEN, 0, salt);
	kdf_b64_encode(p.hash, KDF_HASH_LEN, 0, hash);
	OPENSSL_cleanse(p.hash, sizeof p.hash);
	n = snprintf(out, outlen, "$scrypt$ln=%d,r=%d,p=%d$%s$%s", p.ln, p.r, p.p, salt, hash);
	OPENSSL_cleanse(hash, sizeof hash);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

/* A small decimal in [1, max] with no sign, no leading zero; advances *s. */
static int parse_small(const char **s, int max)
{
	const char *q = *s;
	int v = 0;

	if (*q < '1' || *q > '9')
		return -1;
	while (*q >= '0' && *q <= '9') {
		v = v * 10 + (*q - '0');
		if (v > max)
			return -1;
		q++;
	}
	*s = q;
	return v;
}

static int expect(const char **s, const char *lit)
{
	size_t n = strlen(lit);
	if (strncmp(*s, lit, n) != 0)
		return -1;
	*s += n;
	return 0;
}

int kdf_parse(const char *enc, struct kdf_params *out)
{
	const char *s = enc, *dollar;
	struct kdf_params p;

	memset(&p, 0, sizeof p);
	if (enc == NULL || strlen(enc) >= KDF_ENCODED_MAX)
		return -1;
	if (expect(&s, "$scrypt$ln=") != 0 || (p.ln = parse_small(&s, KDF_LN_MAX)) < 0 ||
	    p.ln < KDF_LN_MIN)
		return -1;
	if (expect(&s, ",r=") != 0 || (p.r = parse_small(&s, KDF_R_MAX)) < 0)
		return -1;
	if (expect(&s, ",p=") != 0 || (p.p = parse_small(&s, KDF_P_MAX)) < 0)
		return -1;
	if (expect(&s, "$") != 0 || (dollar = strchr(s, '$')) == NULL)
		return -1;
	if (kdf_b64_decode(s, (size_t)(dollar - s), 0, p.salt, sizeof p.salt) != KDF_SALT_LEN)
		return -1;
	s = dollar + 1;
	if (kdf_b64_decode(s, strlen(s), 0, p.hash, sizeof p.hash) != KDF_HASH_LEN)
		return -1;
	*out = p;
	return 0;
}

int kdf_verify(const char *pw, size_t pwlen, const char *encoded)
{
	struct kdf_params p;
	uint8_t got[KDF_HASH_LEN];
	int rc;

	if (kdf_parse(encoded, &p) != 0)
		return -1;
	if (scrypt(pw, pwlen, &p, got) != 0)
		return -1;
	rc = CRYPTO_memcmp(got, p.hash, KDF_HASH_LEN) == 0 ? 1 : 0;
	OPENSSL_cleanse(got, sizeof got);
	return rc;
}

int kdf_token_new(char *out)
{
	uint8_t raw[KDF_TOKEN_BYTES];

	if (RAND_bytes(raw, sizeof raw) != 1)
		return -1;
	kdf_b64_encode(raw, sizeof raw, 1, out);
	OPENSSL_cleanse(raw, sizeof raw);
	return 0;
}

int kdf_token_valid(const char *s, size_t len)
{
	uint8_t raw[KDF_TOKEN_BYTES];

	if (s == NULL || len != KDF_TOKEN_LEN)
		return 0;
	return kdf_b64_decode(s, len, 1, raw, sizeof raw) == KDF_TOKEN_BYTES;
}

int kdf_token_digest(const char *token, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t md[32];
	unsigned int mdlen = 0;

	if (EVP_Digest(token, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != sizeof md)
		return -1;
	for (size_t i = 0; i < sizeof md; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * sizeof md] = '\0';
	return 0;
}
