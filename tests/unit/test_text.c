/*
 * test_text.c — common/text.c's run of marks on one letter (text.h,
 * TEXT_COMBINING_RUN): "Zalgo" text, marks piled on a letter so high they
 * draw over the lines around, is refused; the world's writing is not.
 * (test_action's test_text_plain and test_text_disguises check the rest of
 * text.h's rule.)
 *   marks_across_dropped      regression: a dropped character (U+034F,
 *                             U+200B, U+00AD, a tag...) between marks ended
 *                             the run, and was dropped: "e" + (4 acutes +
 *                             U+034F) * 10 + 4 acutes came out as e with 44
 *   marks_across_zero_width   regression: so did one kept as zero-width
 *                             (U+FE0F, ZWJ, ZWNJ...): 54 marks on one e
 *   marks_of_every_script     regression: only a few generic blocks were
 *                             counted; Thai's tone marks (the classic Thai
 *                             Zalgo), Arabic's harakat, Hebrew's points,
 *                             Tamil's virama, enclosing marks (Me), marks
 *                             past the BMP: four pass unchanged, five do
 *                             not (spacing marks, Mc, are not counted: they
 *                             do not pile up, and Burmese writes five)
 *   every_mark_counted        every code point of general category Mn, Me in
 *                             text_marks.h (generated from the UCD) counts
 *                             but the few dropped or zero-width; the code
 *                             points beside each range do not
 *   run_ends_at_a_letter      a kept character or a space ends a run
 *   legitimate_text           Vietnamese (precomposed and decomposed),
 *                             Hindi, Thai, Arabic with harakat and the
 *                             Quran's marks, Hebrew with niqqud and
 *                             cantillation, Tibetan stacks, Myanmar,
 *                             Japanese, Korean, emoji (skin tones, ZWJ
 *                             sequences, keycaps, flags, subdivision flags
 *                             with their tags): taken unchanged
 *   message_cut_between_characters  failf's message cut to its buffer
 *                             between UTF-8 characters (text_whole_len)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "errbuf.h"
#include "text.h"
#include "text_marks.h"

/* The text under test, built a code point at a time. */
static char in[1024];
static size_t in_len;
static char out[1024];

static void start(void)
{
	in_len = 0;
	in[0] = '\0';
}

/* cp, times times, in UTF-8. */
static void add(unsigned long cp, int times)
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	for (int t = 0; t < times; t++) {
		ck_assert_uint_lt(in_len + k, sizeof in);
		unsigned long c = cp;
		for (size_t i = k - 1; i > 0; i--, c >>= 6)
			in[in_len + i] = (char)(0x80 | (c & 0x3f));
		in[in_len] = (char)(lead[k] | c);
		in_len += k;
		in[in_len] = '\0';
	}
}

static bool words(void)
{
	return text_words(in, out, sizeof out);
}

/* The characters dropped (text.h): the marks on either side of one are on
 * one letter. */
static const unsigned long dropped[] = {
	0x34f,     /* COMBINING GRAPHEME JOINER (a mark itself, but dropped) */
	0x200b,    /* ZERO WIDTH SPACE */
	0xad,      /* SOFT HYPHEN */
	0xe0041,   /* TAG LATIN CAPITAL LETTER A */
	0x2060,    /* WORD JOINER */
	0xfeff,    /* ZERO WIDTH NO-BREAK SPACE */
	0x180e,    /* MONGOLIAN VOWEL SEPARATOR */
};

/* The zero-width characters kept inside a word (text.h). */
static const unsigned long zero_width[] = {
	0xfe0f,   /* VARIATION SELECTOR-16 */
	0xfe00,   /* VARIATION SELECTOR-1 */
	0x200d,   /* ZERO WIDTH JOINER */
	0x200c,   /* ZERO WIDTH NON-JOINER */
	0x200e,   /* LEFT-TO-RIGHT MARK */
	0x200f,   /* RIGHT-TO-LEFT MARK */
	0x61c,    /* ARABIC LETTER MARK */
};

/* e + (4 acutes + between) * 10 + 4 acutes; and at the least, e + 4
 * acutes + between + 1 acute. */
static void refused_across(unsigned long between, const char *what)
{
	start();
	add('e', 1);
	for (int i = 0; i < 10; i++) {
		add(0x301, TEXT_COMBINING_RUN);
		add(between, 1);
	}
	add(0x301, TEXT_COMBINING_RUN);
	ck_assert_msg(!words(), "accepted: e + (4 U+0301 + %s U+%04lX) * 10 + 4 U+0301, as \"%s\"",
	              what, between, out);

	start();
	add('e', 1);
	add(0x301, TEXT_COMBINING_RUN);
	add(between, 1);
	add(0x301, 1);
	ck_assert_msg(!words(), "accepted: e + 4 U+0301 + %s U+%04lX + U+0301, as \"%s\"", what,
	              between, out);

	/* Four in all, the character between them or not, are a letter's. */
	start();
	add('e', 1);
	add(0x301, 2);
	add(between, 1);
	add(0x301, TEXT_COMBINING_RUN - 2);
	add('x', 1);
	ck_assert_msg(words(), "refused: e + 2 U+0301 + %s U+%04lX + 2 U+0301 + x", what, between);
}

START_TEST(marks_across_dropped)
{
	for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
		refused_across(dropped[i], "dropped");
}
END_TEST

START_TEST(marks_across_zero_width)
{
	for (size_t i = 0; i < sizeof zero_width / sizeof zero_width[0]; i++)
		refused_across(zero_width[i], "zero-width");
	/* The probe's own: 54 marks on one e, U+FE0F kept among them. */
	start();
	add('e', 1);
	for (int i = 0; i < 10; i++) {
		add(0x301, 4);
		add(0xfe0f, 1);
	}
	add(0x301, 14);
	ck_assert_msg(!words(), "accepted: e + (4 U+0301 + U+FE0F) * 10 + 14 U+0301");
}
END_TEST

START_TEST(marks_of_every_script)
{
	static const struct {
		unsigned long base, mark;
		int pile;   /* the probe's run */
		const char *what;
	} marks[] = {
		{ 0xe01, 0xe49, 30, "Thai KO KAI + MAI THO (Mn)" },
		{ 0x628, 0x64b, 30, "Arabic BEH + FATHATAN (Mn)" },
		{ 0x5d0, 0x5b0, 30, "Hebrew ALEF + SHEVA (Mn)" },
		{ 0xb95, 0xbcd, 30, "Tamil KA + VIRAMA (Mn)" },
		{ 0x915, 0x94d, 30, "Devanagari KA + VIRAMA (Mn)" },
		{ 0xf40, 0xf90, 30, "Tibetan KA + SUBJOINED KA (Mn)" },
		{ 0x1000, 0x103d, 30, "Myanmar KA + MEDIAL WA (Mn)" },
		{ 0x1780, 0x17c6, 30, "Khmer KA + NIKAHIT (Mn)" },
		{ 0x3042, 0x3099, 30, "Hiragana A + VOICED SOUND MARK (Mn)" },
		{ 'o', 0x20dd, 30, "o + ENCLOSING CIRCLE (Me)" },
		{ 0x430, 0x488, 30, "Cyrillic a + HUNDRED THOUSANDS SIGN (Me)" },
		{ 'a', 0x301, 30, "a + ACUTE (Mn)" },
		{ 0x11013, 0x11038, 30, "Brahmi KA + VOWEL SIGN AA (Mn, past the BMP)" },
		{ 'a', 0x1d167, 30, "a + MUSICAL SYMBOL COMBINING TREMOLO-1 (Mn, past the BMP)" },
		{ 0x1e4d0, 0x1e4ec, 30, "Nag Mundari A + SIGN MUHOR (Mn, Unicode 15)" },
	};
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		start();
		add(marks[i].base, 1);
		add(marks[i].mark, TEXT_COMBINING_RUN);
		ck_assert_msg(words(), "refused: %s * 4", marks[i].what);
		ck_assert_msg(strcmp(out, in) == 0, "%s * 4 changed", marks[i].what);
		add(marks[i].mark, 1);
		ck_assert_msg(!words(), "accepted: %s * 5, as \"%s\"", marks[i].what, out);
		start();
		add(marks[i].base, 1);
		add(marks[i].mark, marks[i].pile);
		ck_assert_msg(!words(), "accepted: %s * %d, as \"%s\"", marks[i].what, marks[i].pile,
		              out);
	}
}
END_TEST

/* The marks text.h drops or keeps as zero-width: not counted. */
static bool not_counted(unsigned long cp)
{
	return cp == 0x34f || cp == 0x17b4 || cp == 0x17b5 || (cp >= 0x180b && cp <= 0x180f) ||
	       (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

static bool in_table(unsigned long cp)
{
	for (size_t i = 0; i < sizeof text_marks / sizeof text_marks[0]; i++)
		if (cp >= text_marks[i][0] && cp <= text_marks[i][1])
			return true;
	return false;
}

START_TEST(every_mark_counted)
{
	size_t n = sizeof text_marks / sizeof text_marks[0], counted = 0;

	ck_assert_uint_gt(n, 250);   /* Unicode 15: 343 ranges, 1,998 marks */
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(text_marks[i][0] <= text_marks[i][1], "range %zu backwards", i);
		ck_assert_msg(i == 0 || text_marks[i - 1][1] + 1 < text_marks[i][0],
		              "range %zu not after %zu, or adjacent", i, i - 1);
		for (unsigned long cp = text_marks[i][0]; cp <= text_marks[i][1]; cp++) {
			start();
			add('a', 1);
			add(cp, TEXT_COMBINING_RUN + 1);
			if (not_counted(cp)) {
				ck_assert_msg(words(), "refused: a + 5 U+%04lX (not counted)", cp);
			} else {
				ck_assert_msg(!words(), "accepted: a + 5 U+%04lX (a mark, Unicode %s)", cp,
				              TEXT_MARKS_UNICODE);
				counted++;
			}
		}
		/* The code points on either side (not surrogates) are not marks. */
		unsigned long beside[] = { text_marks[i][0] - 1, text_marks[i][1] + 1 };
		for (size_t b = 0; b < 2; b++) {
			unsigned long cp = beside[b];
			if (in_table(cp) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
				continue;
			start();
			add('a', 1);
			add(cp, TEXT_COMBINING_RUN + 1);
			ck_assert_msg(words(), "refused: a + 5 U+%04lX (not a mark)", cp);
		}
	}
	ck_assert_uint_gt(counted, 1700);   /* 1,735: the selectors and a few more are not counted */
}
END_TEST

/* Regression (a second review): a spacing mark (Mc) took a place of its
 * own but ended the run, so e + (4 acutes + U+0903) * 8 put 32 acutes on
 * one cluster; it neither counts nor ends a run. */
START_TEST(spacing_mark_does_not_end_a_run)
{
	start();
	add('e', 1);
	add(0x301, 4);
	add(0x903, 1);
	add(0x301, 1);
	ck_assert_msg(!words(), "accepted: e + 4 U+0301 + U+0903 + U+0301, as \"%s\"", out);
	start();
	add(0x915, 1);
	add(0x94d, 2);
	add(0x903, 1);
	add(0x94d, 2);
	add(0x93e, 6);   /* six spacing vowel signs: not a pile */
	ck_assert_msg(words(), "refused: KA + 2 virama + visarga + 2 virama + 6 AA");
}
END_TEST

START_TEST(run_ends_at_a_letter)
{
	/* A kept character: each e has its four. */
	start();
	add('e', 1);
	add(0x301, 4);
	add('e', 1);
	add(0x301, 4);
	ck_assert(words());
	ck_assert_str_eq(out, in);
	/* A space: the marks after it are the space's (a run of their own). */
	start();
	add('e', 1);
	add(0x301, 4);
	add(' ', 1);
	add(0x301, 4);
	ck_assert(words());
	start();
	add('e', 1);
	add(0x301, 4);
	add(0x3000, 1);   /* IDEOGRAPHIC SPACE, a space */
	add(0x301, 4);
	ck_assert(words());
	ck_assert(!(add(0x301, 1), words()));
	/* An emoji after a ZWJ is a letter of its own. */
	start();
	add(0x1f469, 1);
	add(0x20e3, 4);
	add(0x200d, 1);
	add(0x1f4bb, 1);
	add(0x20e3, 4);
	ck_assert(words());
	/* Marks at the start are on nothing: four, not five. */
	start();
	add(0x301, 4);
	ck_assert(words());
	add(0x301, 1);
	ck_assert(!words());
	/* Marks of two scripts on one letter are one run. */
	start();
	add('a', 1);
	add(0x301, 2);
	add(0xe49, 3);
	ck_assert_msg(!words(), "accepted: a + 2 U+0301 + 3 U+0E49, as \"%s\"", out);
}
END_TEST

START_TEST(legitimate_text)
{
	static const char *const texts[] = {
		/* Vietnamese, precomposed, then decomposed (NFD: e + U+0302 + U+0301,
		 * e + U+0323 + U+0302) */
		"Ti\u1ebfng Vi\u1ec7t",
		"Tie\u0302\u0301ng Vie\u0323\u0302t",
		/* Hindi: हिन्दी, क्षत्रिय; क़ीं (nukta, vowel sign, anusvara: 3) */
		"\u0939\u093f\u0928\u094d\u0926\u0940", "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f",
		"\u0915\u093c\u0940\u0902",
		/* Thai: ภาษาไทย ที่นี่ น้ำ สวัสดีครับ กี๊ (vowel + tone mark) */
		"\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22 \u0e17\u0e35\u0e48\u0e19\u0e35\u0e48 "
		"\u0e19\u0e49\u0e33 \u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a "
		"\u0e01\u0e35\u0e4a",
		/* Arabic with harakat: مَرْحَبًا, مُحَمَّدٌ (shadda + fatha) */
		"\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627",
		"\u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f\u064c",
		/* the Basmala, with the superscript alef: بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ */
		"\u0628\u0650\u0633\u0652\u0645\u0650 \u0671\u0644\u0644\u064e\u0651\u0647\u0650 "
		"\u0671\u0644\u0631\u064e\u0651\u062d\u0652\u0645\u064e\u0670\u0646\u0650 "
		"\u0671\u0644\u0631\u064e\u0651\u062d\u0650\u064a\u0645\u0650",
		/* Hebrew with niqqud: שָׁלוֹם, בְּרֵאשִׁית */
		"\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",
		"\u05d1\u05b0\u05bc\u05e8\u05b5\u05d0\u05e9\u05b4\u05c1\u05d9\u05ea",
		/* ... and cantillation (Genesis 1:1: הַשָּׁמַ֖יִם, shin with qamats,
		 * dagesh and shin dot) */
		"\u05d1\u05b0\u05bc\u05e8\u05b5\u05d0\u05e9\u05b4\u05c1\u0596\u05d9\u05ea "
		"\u05d1\u05b8\u05bc\u05e8\u05b8\u05a3\u05d0 \u05d0\u05b1\u05dc\u05b9\u05d4\u05b4\u0591"
		"\u05d9\u05dd \u05d0\u05b5\u05a5\u05ea \u05d4\u05b7\u05e9\u05b8\u05bc\u05c1\u05de\u05b7"
		"\u0596\u05d9\u05b4\u05dd",
		/* Tibetan stacks: བསྒྲུབས་ (subjoined ga, ra, vowel u),
		 * ཨོཾ་མ་ཎི་པདྨེ་ཧཱུྃ, and ཧྲཱིཿ (HRIH: 4, the most) */
		"\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56\u0f66\u0f0b",
		"\u0f68\u0f7c\u0f7e\u0f0b\u0f58\u0f0b\u0f4e\u0f72\u0f0b\u0f54\u0f51\u0fa8\u0f7a\u0f0b"
		"\u0f67\u0f71\u0f74\u0f83",
		"\u0f67\u0fb2\u0f71\u0f72\u0f7f",
		/* Myanmar: ချွေး (sweat), and, regression (a review), မျှော်လင့်
		 * (hope: five marks on one letter, three of them spacing) */
		"\u1001\u103b\u103d\u1031\u1038", "\u1019\u103b\u103e\u1031\u102c\u103a\u101c\u1004\u1037\u103a",
		/* Devanagari's spacing vowel signs (Mc) take places of their own */
		"\u0915\u093e\u093e\u093e\u093e\u093e\u093e",
		/* Tamil: தமிழ் */
		"\u0ba4\u0bae\u0bbf\u0bb4\u0bcd",
		/* Japanese, decomposed: か + U+3099; Korean */
		"\u304b\u3099\u304d\u3099", "\ud55c\uad6d\uc5b4",
		/* Yoruba: ẹ̀ */
		"e\u0323\u0300 Yor\u00f9b\u00e1",
		/* emoji: woman technologist, medium skin tone (👩🏽‍💻); family
		 * (👨‍👩‍👧); flags 🇫🇷 🇯🇵; keycap 1️⃣; ❤️ inside a word; rainbow
		 * flag 🏳️‍🌈 */
		"\U0001f469\U0001f3fd\u200d\U0001f4bb \U0001f468\u200d\U0001f469\u200d\U0001f467 "
		"\U0001f1eb\U0001f1f7\U0001f1ef\U0001f1f5 1\ufe0f\u20e3 \u2764\ufe0f! "
		"\U0001f3f3\ufe0f\u200d\U0001f308",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		ck_assert_msg(text_words(texts[i], out, sizeof out), "refused #%zu: %s", i, texts[i]);
		ck_assert_msg(strcmp(out, texts[i]) == 0, "#%zu: \"%s\", not \"%s\"", i, out, texts[i]);
	}
	/* Regression (a review): a variation selector that ends a word (❤️,
	 * the pirate flag 🏴‍☠️, a kanji's variant) was dropped as a zero-width
	 * mark touching a space or the end, and "I ❤️" lost its colour; kept
	 * after a character kept, dropped where it selects nothing (after a
	 * space, at the start). */
	static const char *const ends[] = {
		"I \u2764\ufe0f", "\u2764\ufe0f you", "\U0001f3f4\u200d\u2620\ufe0f", "\u845b\U000e0100 san",
	};
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		ck_assert(text_words(ends[i], out, sizeof out));
		ck_assert_msg(strcmp(out, ends[i]) == 0, "\"%s\", not \"%s\"", out, ends[i]);
	}
	ck_assert(text_words("\ufe0fa \ufe0f\ufe0fb\ufe0f\ufe0f\u200d\ufe0f", out, sizeof out));
	ck_assert_str_eq(out, "a b\ufe0f");   /* one a character: a run of them is an invisible run */
	/* Regression (left by the Unicode probe): a subdivision flag (🏴 +
	 * tags) lost its tags with every other default ignorable and was a
	 * black flag.  England's, Scotland's, Wales's flags are kept whole. */
	static const char *const flags[] = {
		"\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
		"Scotland \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f!",
		"\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f\U0001f3f4",
		"\U0001f3f4\U000e0075\U000e0073\U000e0074\U000e0078\U000e007f",   /* us-tx: 4 */
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		ck_assert(text_words(flags[i], out, sizeof out));
		ck_assert_msg(strcmp(out, flags[i]) == 0, "flag #%zu cut to \"%s\"", i, out);
	}
	/* Tags that are not a flag's stay dropped (they spell invisible text):
	 * after another character, capitals, too few or too many, no cancel
	 * tag, or more after the cancel. */
	static const struct { const char *in, *out; } tags[] = {
		{ "a\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007fb", "ab" },
		{ "\U0001f3f4\U000e0047\U000e0042\U000e0053\U000e0043\U000e0054\U000e007f", "\U0001f3f4" },
		{ "\U0001f3f4\U000e0067\U000e0062\U000e007f", "\U0001f3f4" },
		{ "\U0001f3f4\U000e0068\U000e0069\U000e0064\U000e0064\U000e0065\U000e006e\U000e0021"
		  "\U000e007f", "\U0001f3f4" },
		{ "\U0001f3f4\U000e0068\U000e0069\U000e0064\U000e0064\U000e0065\U000e006e\U000e0078"
		  "\U000e007f", "\U0001f3f4" },
		{ "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074 x", "\U0001f3f4 x" },
		{ "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f\U000e0068"
		  "\U000e0069\U000e007f", "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074"
		  "\U000e007f" },
	};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		ck_assert(text_words(tags[i].in, out, sizeof out));
		ck_assert_msg(strcmp(out, tags[i].out) == 0, "tags #%zu: \"%s\"", i, out);
	}
	/* a flag whose tags do not fit is refused whole, never cut */
	ck_assert(!text_words(flags[0], out, 8));
}
END_TEST

/* Whole UTF-8 (the WebSocket door's check of a text frame, the clients'
 * tests): NULs and C1 controls are characters; overlong forms, surrogates,
 * code points past U+10FFFF, stray and cut sequences are not. */
START_TEST(utf8_valid)
{
	static const struct { const char *s; size_t n; bool ok; } cases[] = {
		{ "", 0, true }, { "a\0b", 3, true }, { "\xc2\x9b", 2, true }, { "\xe4\xb8\xad", 3, true },
		{ "\xf4\x8f\xbf\xbf", 4, true }, { "\xc0\xaf", 2, false }, { "\xe0\x80\xaf", 3, false },
		{ "\xed\xa0\x80", 3, false }, { "\xf4\x90\x80\x80", 4, false }, { "\x80", 1, false },
		{ "\xe4\xb8", 2, false }, { "ok\xe4\xb8\xad\xe4", 7, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(text_utf8_valid(cases[i].s, cases[i].n) == cases[i].ok, "case %zu", i);
}
END_TEST

/* A message cut to its buffer is cut between characters (failf; a
 * review found "bad time control \"aaa...狚\"" shown with a lone byte of
 * 狚 at the end, a C1 control to an 8-bit terminal). */
START_TEST(message_cut_between_characters)
{
	char err[9];
	ck_assert_int_eq(failf(err, sizeof err, "aaaaa%s", "\xe7\x8b\x9a"), -1);   /* 8 bytes: fits */
	ck_assert_str_eq(err, "aaaaa\xe7\x8b\x9a");
	ck_assert_int_eq(failf(err, sizeof err, "aaaaaa%s", "\xe7\x8b\x9a"), -1);  /* 9: the character goes */
	ck_assert_str_eq(err, "aaaaaa");
	ck_assert_int_eq(failf(err, sizeof err, "aaaaaaa%s", "\xc3\xa9z"), -1);    /* a 2-byte one fits */
	ck_assert_str_eq(err, "aaaaaaa");
	ck_assert_int_eq(failf(err, sizeof err, "aaaaaa%s", "\xc3\xa9z"), -1);
	ck_assert_str_eq(err, "aaaaaa\xc3\xa9");
	ck_assert_int_eq(text_whole_len("ab\xf0\x9f\x98", 5), 2);   /* 3 of a 4-byte one */
	ck_assert_int_eq(text_whole_len("ab\x80", 3), 3);             /* no lead: not a cut character */
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");
	tcase_add_test(tc, marks_across_dropped);
	tcase_add_test(tc, marks_across_zero_width);
	tcase_add_test(tc, marks_of_every_script);
	tcase_add_test(tc, every_mark_counted);
	tcase_add_test(tc, spacing_mark_does_not_end_a_run);
	tcase_add_test(tc, run_ends_at_a_letter);
	tcase_add_test(tc, legitimate_text);
	tcase_add_test(tc, utf8_valid);
	tcase_add_test(tc, message_cut_between_characters);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(text_suite)
