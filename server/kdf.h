/*
 * kdf.h — password hashing (scrypt through OpenSSL 3's EVP_KDF) and the
 * small crypto helpers of sessions (random tokens, token digests).
 *
 * An encoded hash is self-describing, so the cost can be raised later and
 * old hashes still verify:
 *
 *     $scrypt$ln=15,r=8,p=1$<salt>$<hash>
 *
 * salt and hash in standard base64 without padding (the PHC string style).
 * Every function here is thread-safe: the hashing runs on auth's workers.
 */
#ifndef KRIEG_KDF_H
#define KRIEG_KDF_H

#include <stddef.h>
#include <stdint.h>

#define KDF_LN_DEFAULT 15          /* N = 2^15: 32 MiB and ~0.1 s per hash */
#define KDF_LN_MIN 10              /* parse limits: a stored string cannot ask for */
#define KDF_LN_MAX 20              /* more than 2^20 (1 GiB at r=8) */
#define KDF_R 8
#define KDF_P 1
#define KDF_R_MAX 32
#define KDF_P_MAX 16
#define KDF_SALT_LEN 16
#define KDF_HASH_LEN 32
#define KDF_ENCODED_MAX 128        /* fits store.h's STORE_HASH_MAX */

#define KDF_TOKEN_BYTES 32
#define KDF_TOKEN_LEN 43           /* base64url of 32 bytes, no padding (= PROTO_TOKEN_LEN) */
#define KDF_DIGEST_HEX 64          /* SHA-256 in lower-case hex */

struct kdf_params {
	int ln, r, p;
	uint8_t salt[KDF_SALT_LEN];
	uint8_t hash[KDF_HASH_LEN];
};

/* Hash password with a fresh random salt at cost 2^ln; writes the encoded
 * string to out.  Returns 0, or -1 (RNG or KDF failure, out too small). */
int kdf_hash(const char *pw, size_t pwlen, int ln, char *out, size_t outlen);

/* 1: the password matches; 0: it does not; -1: encoded is malformed or
 * the KDF failed.  The comparison is constant-time. */
int kdf_verify(const char *pw, size_t pwlen, const char *encoded);

/* Parse an encoded string strictly.  Returns 0 or -1. */
int kdf_parse(const char *encoded, struct kdf_params *out);

/* A new resume token: KDF_TOKEN_BYTES from RAND_bytes, base64url.
 * out must hold KDF_TOKEN_LEN + 1 bytes.  Returns 0 or -1. */
int kdf_token_new(char *out);
/* Is s shaped like a token (length and alphabet)? */
int kdf_token_valid(const char *s, size_t len);
/* SHA-256 of the token text in hex; out holds KDF_DIGEST_HEX + 1 bytes. */
int kdf_token_digest(const char *token, size_t len, char *out);

/* base64 without padding; url selects the "-_" alphabet.  encode returns
 * the length written (out holds 4*ceil(n/3)+1), decode the bytes decoded or
 * -1 on a bad character, a bad length, non-zero trailing bits, or overflow. */
size_t kdf_b64_encode(const uint8_t *in, size_t n, int url, char *out);
int kdf_b64_decode(const char *in, size_t len, int url, uint8_t *out, size_t outmax);

#endif
