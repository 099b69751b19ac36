#include <openssl/evp.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
