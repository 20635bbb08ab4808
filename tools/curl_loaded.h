/* curl_loaded.h — libcurl, loaded by `seektrace load` when it runs.
 *
 * Linked at build time, libcurl brought its 36 libraries (TLS, Kerberos,
 * LDAP, ...) into every seektrace command: 8.9 MB of RSS and 4.8 ms of
 * CPU for `seektrace --version`, against 2.5 MB and 0.9 ms without them,
 * in each `seektrace check` of a CI job and in the command that `seektrace
 * run` leaves waiting beside the traced job. Only `load` speaks HTTP, so
 * only `load` dlopens libcurl. */
#ifndef SEEKTRACE_CURL_LOADED_H
#define SEEKTRACE_CURL_LOADED_H

#include <curl/curl.h>

/* The libcurl functions `load` calls. */
struct curl_api {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *curl);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
};

/* libcurl's functions, loaded on the first call; NULL when libcurl cannot
 * be loaded, with why (dlerror's words) in *why. */
const struct curl_api *curl_loaded(const char **why);

#endif
