/*
 * attacks.c — home of the generated constant tables (bitboard.h, zobrist.h).
 * The fragment comes from common/gen/gentables.c via the Makefile.
 */
#include "bitboard.h"
#include "zobrist.h"

#include "krieg_tables.inc"
