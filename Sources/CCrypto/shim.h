// SHA-256 from the system's OpenSSL libcrypto (Debian libssl-dev): one small C library instead of
// swift-crypto, whose BoringSSL copy was 360 of the package's 550 compiled units.
#include <openssl/evp.h>
