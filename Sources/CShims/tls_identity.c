// The throwaway CA and server certificate of `imgbench serve --tls`, made with libcrypto.
//
// Why OpenSSL's libcrypto from C: it is already in the process (libcurl4-openssl links it), so it
// costs no build time and no second copy of a TLS library. NIOSSL's bundled BoringSSL is not a
// product of swift-nio-ssl (importing CNIOBoringSSL relies on a transitive module leaking through),
// and swift-certificates would bring swift-crypto and a second BoringSSL to compile three times in
// CI. Shelling out to the `openssl` tool would make serve depend on a binary being on PATH.

#include "tls_identity.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// Valid from a day back (a client's clock may lag) to 30 days ahead (a long soak test).
static const long valid_before_seconds = 24L * 3600;
static const long valid_after_seconds = 30L * 24 * 3600;

static int fail(char *error, size_t error_size, const char *what) {
    char reason[200] = "";
    unsigned long code = ERR_get_error();
    if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
    snprintf(error, error_size, "%s%s%s", what, code != 0 ? ": " : "", reason);
    ERR_clear_error();
    return -1;
}

// One extension from OpenSSL's configuration syntax ("critical,CA:TRUE").
static int add_extension(X509 *cert, X509V3_CTX *ctx, int nid, const char *value) {
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
    if (extension == NULL) return 0;
    int added = X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
    return added;
}

// A certificate for `key`, named `common_name`, signed by `issuer` (NULL: self-signed).
static X509 *make_certificate(EVP_PKEY *key, const char *common_name, X509 *issuer, EVP_PKEY *issuer_key, int is_ca) {
    X509 *cert = X509_new();
    BIGNUM *serial = BN_new();
    int ok = cert != NULL && serial != NULL && X509_set_version(cert, X509_VERSION_3)
        // A random serial: two runs' CAs must not look like the same one to a client's cache.
        && BN_rand(serial, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)
        && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert)) != NULL
        && X509_gmtime_adj(X509_getm_notBefore(cert), -valid_before_seconds) != NULL
        && X509_gmtime_adj(X509_getm_notAfter(cert), valid_after_seconds) != NULL
        && X509_set_pubkey(cert, key)
        && X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "O", MBSTRING_ASC,
                                      (const unsigned char *)"imgbench", -1, -1, 0)
        && X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                                      (const unsigned char *)common_name, -1, -1, 0)
        && X509_set_issuer_name(cert, X509_get_subject_name(issuer != NULL ? issuer : cert));
    BN_free(serial);
    if (ok) {
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, issuer != NULL ? issuer : cert, cert, NULL, NULL, 0);
        ok = add_extension(cert, &ctx, NID_subject_key_identifier, "hash");
        if (is_ca) {
            ok = ok && add_extension(cert, &ctx, NID_basic_constraints, "critical,CA:TRUE")
                && add_extension(cert, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
        } else {
            ok = ok && add_extension(cert, &ctx, NID_basic_constraints, "critical,CA:FALSE")
                && add_extension(cert, &ctx, NID_key_usage, "critical,digitalSignature")
                && add_extension(cert, &ctx, NID_ext_key_usage, "serverAuth")
                && add_extension(cert, &ctx, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost")
                && add_extension(cert, &ctx, NID_authority_key_identifier, "keyid:always");
        }
        ok = ok && X509_sign(cert, issuer_key, EVP_sha256()) > 0;
    }
    if (!ok) {
        X509_free(cert);
        return NULL;
    }
    return cert;
}

// Opens `path` for writing with `mode` (0600 for the key: it is a secret even if throwaway).
static FILE *create(const char *path, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) return NULL;
    FILE *file = fdopen(fd, "w");
    if (file == NULL) close(fd);
    return file;
}

static int write_certificate(const char *path, X509 *cert) {
    FILE *file = create(path, 0644);
    if (file == NULL) return 0;
    int ok = PEM_write_X509(file, cert);
    return fclose(file) == 0 && ok;
}

int ib_tls_make_identity(const char *ca_path, const char *cert_path, const char *key_path,
                         char *error, size_t error_size) {
    int result = -1;
    EVP_PKEY *ca_key = EVP_EC_gen("P-256");
    EVP_PKEY *server_key = EVP_EC_gen("P-256");
    X509 *ca = NULL, *server = NULL;
    if (ca_key == NULL || server_key == NULL) {
        fail(error, error_size, "cannot make an EC P-256 key");
        goto done;
    }
    ca = make_certificate(ca_key, "imgbench throwaway CA", NULL, ca_key, 1);
    server = ca != NULL ? make_certificate(server_key, "localhost", ca, ca_key, 0) : NULL;
    if (server == NULL) {
        fail(error, error_size, "cannot make the certificates");
        goto done;
    }
    if (!write_certificate(ca_path, ca)) {
        fail(error, error_size, ca_path);
        goto done;
    }
    if (!write_certificate(cert_path, server)) {
        fail(error, error_size, cert_path);
        goto done;
    }
    FILE *key_file = create(key_path, 0600);
    int written = key_file != NULL && PEM_write_PrivateKey(key_file, server_key, NULL, NULL, 0, NULL, NULL);
    if (key_file != NULL && fclose(key_file) != 0) written = 0;
    if (!written) {
        fail(error, error_size, key_path);
        goto done;
    }
    result = 0;
done:
    X509_free(ca);
    X509_free(server);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(server_key);
    return result;
}
