// Makes OpenSSL's libcrypto visible to CReceiptCrypto; nothing else imports it.
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
