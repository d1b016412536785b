#ifndef IMGBENCH_TLS_IDENTITY_H
#define IMGBENCH_TLS_IDENTITY_H

#include <stddef.h>

// A throwaway certificate authority and a server certificate it signed, for `imgbench serve --tls`
// and the tests (tls_identity.c). Writes, with EC P-256 keys:
//   ca_path    the CA's certificate (PEM), what a client trusts (curl --cacert);
//   cert_path  the server's certificate (PEM) for 127.0.0.1 and localhost;
//   key_path   the server's private key (PEM, PKCS#8, mode 0600).
// The CA's private key is never written: it signs this one certificate and is gone.
// Returns 0, or -1 with a one-line reason in `error` (NUL-terminated, at most error_size bytes).
int ib_tls_make_identity(const char *ca_path, const char *cert_path, const char *key_path,
                         char *error, size_t error_size);

#endif
