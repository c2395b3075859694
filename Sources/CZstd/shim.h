// Imports zstd into Swift: summary documents compressed at rest (BraceletStore).
#pragma once
#include <zstd.h>
