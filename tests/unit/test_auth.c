/*
 * test_auth.c — password hashing, the encoded hash format, resume tokens
 * and their digests, name/password rules, guest names.  No network: the
 * worker pool and the commands are covered by tests/integration/test_accounts.c.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "check_main.h"
#include "kdf.h"

/* Computed independently (Python's hashlib.scrypt, n=1024 r=8 p=1, salt
 * bytes 0..15, 32-byte key) so the test pins the algorithm and the format,
 * not just our own consistency. */
static const char KAT[] =
	"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk";
static const char KAT_PW[] = "correct horse battery";

START_TEST(known_answer_verifies)
{
	ck_assert_int_eq(kdf_verify(KAT_PW, strlen(KAT_PW), KAT), 1);
	ck_assert_int_eq(kdf_verify("correct horse batterY", strlen(KAT_PW), KAT), 0);
	ck_assert_int_eq(kdf_verify(KAT_PW, strlen(KAT_PW) - 1, KAT), 0);
}
END_TEST

START_TEST(hash_verify_round_trip)
{
	char a[KDF_ENCODED_MAX], b[KDF_ENCODED_MAX];
	const char *pw = "s3cret passphrase";
	struct kdf_params p;

	ck_assert_int_eq(kdf_hash(pw, strlen(pw), KDF_LN_MIN, a, sizeof a), 0);
	ck_assert_int_eq(kdf_hash(pw, strlen(pw), KDF_LN_MIN, b, sizeof b), 0);
	ck_assert_msg(strncmp(a, "$scrypt$ln=10,r=8,p=1$", 22) == 0, "%s", a);
	/* Fresh salt each time. */
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(kdf_verify(pw, strlen(pw), a), 1);
	ck_assert_int_eq(kdf_verify(pw, strlen(pw), b), 1);
	ck_assert_int_eq(kdf_verify("s3cret passphrasE", strlen(pw), a), 0);
	ck_assert_int_eq(kdf_verify("", 0, a), 0);
	ck_assert_int_eq(kdf_parse(a, &p), 0);
	ck_assert_int_eq(p.ln, KDF_LN_MIN);
	ck_assert_int_eq(p.r, KDF_R);
	ck_assert_int_eq(p.p, KDF_P);
	/* Bytes after a NUL count: the length is the password's. */
	ck_assert_int_eq(kdf_hash("ab\0cd", 5, KDF_LN_MIN, a, sizeof a), 0);
	ck_assert_int_eq(kdf_verify("ab\0cd", 5, a), 1);
	ck_assert_int_eq(kdf_verify("ab\0ce", 5, a), 0);
	ck_assert_int_eq(kdf_verify("ab", 2, a), 0);
}
END_TEST

START_TEST(default_cost_hash)
{
	char a[KDF_ENCODED_MAX];
	char want[32];
	ck_assert_int_eq(kdf_hash("password1", 9, KDF_LN_DEFAULT, a, sizeof a), 0);
	snprintf(want, sizeof want, "$scrypt$ln=%d,r=8,p=1$", KDF_LN_DEFAULT);
	ck_assert_msg(strncmp(a, want, strlen(want)) == 0, "%s", a);
	ck_assert_int_lt(strlen(a), KDF_ENCODED_MAX);
	/* Out-of-range costs are refused, and a too small buffer too. */
	ck_assert_int_eq(kdf_hash("password1", 9, KDF_LN_MAX + 1, a, sizeof a), -1);
	ck_assert_int_eq(kdf_hash("password1", 9, KDF_LN_MIN - 1, a, sizeof a), -1);
	ck_assert_int_eq(kdf_hash("password1", 9, KDF_LN_MIN, a, 40), -1);
}
END_TEST

START_TEST(encoded_format_parse_errors)
{
	static const char *const bad[] = {
		"",
		"scrypt",
		"$scrypt$",
		"$bcrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		/* cost out of range or malformed */
		"$scrypt$ln=9,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=21,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=010,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=-10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=0,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=8,p=99$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,p=1,r=8$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=99999999999999999999,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		/* salt: short, long, padded, bad alphabet, non-canonical tail */
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0O$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODwAA$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw==$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0OD-$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODx$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk",
		/* hash: missing, short, trailing junk, extra field */
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOW",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk ",
		"$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$hKGWL22WtdGfIbxEPAZ06BS2bWyYKuZIKvypfAlYOWk$x",
	};
	struct kdf_params p;

	ck_assert_int_eq(kdf_parse(KAT, &p), 0);
	ck_assert_int_eq(p.ln, 10);
	ck_assert_int_eq(p.salt[15], 15);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(kdf_parse(bad[i], &p) == -1, "parsed: %s", bad[i]);
		ck_assert_msg(kdf_verify(KAT_PW, strlen(KAT_PW), bad[i]) == -1, "verified: %s", bad[i]);
	}
	ck_assert_int_eq(kdf_parse(NULL, &p), -1);
}
END_TEST

START_TEST(base64_strict)
{
	uint8_t in[7] = { 0xfb, 0xff, 0x00, 0x10, 0x83, 0xbe, 0x7f }, out[16];
	char enc[16];

	for (size_t n = 0; n <= sizeof in; n++) {
		for (int url = 0; url <= 1; url++) {
			size_t len = kdf_b64_encode(in, n, url, enc);
			ck_assert_uint_eq(len, strlen(enc));
			ck_assert_uint_eq(len, (n * 4 + 2) / 3);
			ck_assert_int_eq(kdf_b64_decode(enc, len, url, out, sizeof out), (int)n);
			ck_assert_int_eq(memcmp(in, out, n), 0);
		}
	}
	kdf_b64_encode(in, 3, 0, enc);
	ck_assert_str_eq(enc, "+/8A");
	kdf_b64_encode(in, 3, 1, enc);
	ck_assert_str_eq(enc, "-_8A");
	ck_assert_int_eq(kdf_b64_decode("+/8A", 4, 1, out, sizeof out), -1);
	ck_assert_int_eq(kdf_b64_decode("-_8A", 4, 0, out, sizeof out), -1);
	ck_assert_int_eq(kdf_b64_decode("QUJD", 4, 0, out, 2), -1);   /* overflow */
	ck_assert_int_eq(kdf_b64_decode("QUJDR", 5, 0, out, sizeof out), -1);
}
END_TEST

START_TEST(tokens)
{
	char t1[KDF_TOKEN_LEN + 1], t2[KDF_TOKEN_LEN + 1];
	char d1[KDF_DIGEST_HEX + 1], d2[KDF_DIGEST_HEX + 1];

	ck_assert_int_eq(KDF_TOKEN_LEN, PROTO_TOKEN_LEN);
	ck_assert_int_eq(kdf_token_new(t1), 0);
	ck_assert_int_eq(kdf_token_new(t2), 0);
	ck_assert_uint_eq(strlen(t1), PROTO_TOKEN_LEN);
	ck_assert_str_ne(t1, t2);
	ck_assert_int_eq(kdf_token_valid(t1, strlen(t1)), 1);
	ck_assert_uint_eq(strspn(t1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
	                  PROTO_TOKEN_LEN);

	/* Shape checks: length, alphabet. */
	ck_assert_int_eq(kdf_token_valid(t1, strlen(t1) - 1), 0);
	ck_assert_int_eq(kdf_token_valid(NULL, 0), 0);
	t2[5] = '+';
	ck_assert_int_eq(kdf_token_valid(t2, strlen(t2)), 0);
	t2[5] = '=';
	ck_assert_int_eq(kdf_token_valid(t2, strlen(t2)), 0);

	/* The digest is SHA-256 of the token text, in hex. */
	ck_assert_int_eq(kdf_token_digest("abc", 3, d1), 0);
	ck_assert_str_eq(d1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_int_eq(kdf_token_digest(t1, strlen(t1), d1), 0);
	ck_assert_int_eq(kdf_token_digest(t1, strlen(t1), d2), 0);
	ck_assert_str_eq(d1, d2);
	ck_assert_uint_eq(strlen(d1), KDF_DIGEST_HEX);
	ck_assert_ptr_null(strstr(d1, t1));
}
END_TEST

START_TEST(name_rules)
{
	static const char *const good[] = { "abc", "Alice", "bob_99", "x-y-z",
	                                    "ABCDEFGHIJKLMNOPQRSTUVWX", "guest", "guestly", "abc-", "a--b" };
	/* a leading '-' (accounts probe): `kriegd user add --must-change
	 * --password-stdin`, its name forgotten, made "--must-change" */
	static const char *const bad[] = { "", "ab", "ABCDEFGHIJKLMNOPQRSTUVWXY", "al ice",
	                                   "alice!", "élan", "a\tb", "guest-1234", "GUEST-abc",
	                                   "a.b", "--bot", "-abc", "---", "--must-change" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(auth_check_name(good[i], strlen(good[i])) == PE_NONE, "%s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(auth_check_name(bad[i], strlen(bad[i])) == PE_BAD_NAME, "%s", bad[i]);
	/* An embedded NUL is a bad character, whatever strlen says. */
	ck_assert_int_eq(auth_check_name("abc\0def", 7), PE_BAD_NAME);
	ck_assert_int_eq(auth_check_name(NULL, 0), PE_BAD_NAME);
	/* Regression (web probe): a spectator named "White" saying "I resign"
	 * read as White's words; "admin" telling "reset your password" as
	 * staff's.  Reserved for `register`, any case. */
	static const char *const reserved[] = { "White", "black", "UMPIRE", "admin", "server", "kriegd",
	                                        "Spectator", "everyone",
	                                        /* (probe) what reads as them */
	                                        "Whlte", "wh1te", "White_", "_White", "BIack", "B1ack",
	                                        "admin-", "adm1n", "Administrat0r", "Umpire_", "umpire1",
	                                        "UMP1RE", "referee_", "Spectator1", "admin2", "operator",
	                                        "You", "Guest",
	                                        /* (a later probe) a trailing separator hid
	                                         * the digits; l, I and O pass for 1 and 0;
	                                         * rn for m; a registered name as a guest's */
	                                        "admin1_", "umpire1-", "white0_", "Adminl", "AdminI",
	                                        "rootl", "modl", "umpirel", "whiteO", "blackO", "rnod",
	                                        "guest_k3x9", "Gue5t_x", "GUEST1",
	                                        /* (a review) a digit read as a letter at the end */
	                                        "Umpir3", "Whit3", "Refere3", "Consol3" };
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		ck_assert_msg(auth_name_reserved(reserved[i]), "%s", reserved[i]);
	static const char *const free_names[] = { "whitey", "umpire_bob", "alice", "kriegfan", "bobby",
	                                          "the_umpire", "blackbird", "modern", "youth", "r2d2",
	                                          "modi", "rooted", "guesser", "whiteout", "Ada1", "Ella",
	                                          "Elia", "umpire_3rd", "whiter" };
	for (size_t i = 0; i < sizeof free_names / sizeof free_names[0]; i++)
		ck_assert_msg(!auth_name_reserved(free_names[i]), "%s", free_names[i]);
}
END_TEST

START_TEST(password_rules)
{
	char longpw[PROTO_PASSWORD_MAX + 2];

	ck_assert_int_eq(auth_check_password("alice", "12345678", 8), PE_NONE);
	ck_assert_int_eq(auth_check_password("alice", "1234567", 7), PE_WEAK_PASSWORD);
	ck_assert_int_eq(auth_check_password("alice", NULL, 0), PE_WEAK_PASSWORD);
	ck_assert_int_eq(auth_check_password("alicebob", "AliceBob", 8), PE_WEAK_PASSWORD);
	ck_assert_int_eq(auth_check_password("alicebob", "AliceBob1", 9), PE_NONE);
	memset(longpw, 'x', sizeof longpw);
	ck_assert_int_eq(auth_check_password("alice", longpw, PROTO_PASSWORD_MAX), PE_NONE);
	ck_assert_int_eq(auth_check_password("alice", longpw, PROTO_PASSWORD_MAX + 1),
	                 PE_WEAK_PASSWORD);
}
END_TEST

START_TEST(guest_names)
{
	char a[PROTO_NAME_MAX + 1], b[PROTO_NAME_MAX + 1];

	ck_assert_int_eq(auth_guest_name(a, sizeof a, AUTH_GUEST_CHARS), 0);
	ck_assert_uint_eq(strlen(a), strlen(AUTH_GUEST_PREFIX) + AUTH_GUEST_CHARS);
	ck_assert_int_eq(strncmp(a, AUTH_GUEST_PREFIX, strlen(AUTH_GUEST_PREFIX)), 0);
	ck_assert_uint_eq(strspn(a + 6, "abcdefghijklmnopqrstuvwxyz0123456789"), AUTH_GUEST_CHARS);
	/* Valid as a name shape but reserved: nobody can register one. */
	ck_assert_int_eq(auth_check_name(a, strlen(a)), PE_BAD_NAME);
	ck_assert_int_eq(auth_guest_name(a, sizeof a, 12), 0);
	ck_assert_int_eq(auth_guest_name(b, sizeof b, 12), 0);
	ck_assert_str_ne(a, b);   /* 36^12: a clash would mean no randomness */
	ck_assert_int_eq(auth_guest_name(a, sizeof a, PROTO_NAME_MAX), -1);
	ck_assert_int_eq(auth_guest_name(a, 8, 4), -1);
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, known_answer_verifies);
	tcase_add_test(tc, hash_verify_round_trip);
	tcase_add_test(tc, default_cost_hash);
	tcase_add_test(tc, encoded_format_parse_errors);
	tcase_add_test(tc, base64_strict);
	tcase_add_test(tc, tokens);
	tcase_add_test(tc, name_rules);
	tcase_add_test(tc, password_rules);
	tcase_add_test(tc, guest_names);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(auth_suite)
