// Imports OpenSSL's libcrypto (HMAC-SHA256 for webhook signatures) into Swift.
#pragma once
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
