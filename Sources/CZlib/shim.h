// Imports zlib into Swift: summaries compressed at rest (BraceletStore) and gzip bodies on the wire
// (BraceletSync, JSON Lines files).
#pragma once
#include <zlib.h>
