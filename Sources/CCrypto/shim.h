// Imports OpenSSL's libcrypto into Swift: SHA-256 (content hashes, BraceletStore), HMAC-SHA256 (webhook
// signatures, BraceletSync) and its error queue.
#pragma once
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/err.h>
