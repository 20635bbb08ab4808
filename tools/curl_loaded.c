/* curl_loaded.c — see curl_loaded.h. */
#include "curl_loaded.h"

#include <dlfcn.h>
#include <stddef.h>

/* The soname Debian's libcurl4 (and libcurl3-gnutls's ABI twin) ships. */
#define LIBCURL "libcurl.so.4"

static const struct {
    const char *name;
    size_t slot;
} entry_points[] = {
    {"curl_global_init", offsetof(struct curl_api, global_init)},
    {"curl_global_cleanup", offsetof(struct curl_api, global_cleanup)},
    {"curl_easy_init", offsetof(struct curl_api, easy_init)},
    {"curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup)},
    {"curl_easy_setopt", offsetof(struct curl_api, easy_setopt)},
    {"curl_easy_perform", offsetof(struct curl_api, easy_perform)},
    {"curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo)},
    {"curl_easy_strerror", offsetof(struct curl_api, easy_strerror)},
};

const struct curl_api *curl_loaded(const char **why)
{
    static struct curl_api api;
    static int loaded;
    if (loaded)
        return &api;
    void *lib = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = dlerror();
        return NULL;
    }
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        void *f = dlsym(lib, entry_points[i].name);
        if (!f) {
            *why = dlerror();
            dlclose(lib);
            return NULL;
        }
        *(void **)((char *)&api + entry_points[i].slot) = f;
    }
    loaded = 1;
    return &api;
}
