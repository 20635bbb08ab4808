/* libFuzzer harness for the trace reader (src/tracefile/trace_reader.c) and the
 * report rebuild (trace_model.c): any input must be read, or refused with a
 * message, without a crash, a leak, undefined behaviour or a hang.
 *
 *   fuzz_trace_reader -max_total_time=60 CORPUS_DIR
 */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace_model.h"
#include "trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("fuzz-trace", MFD_CLOEXEC)) < 0)
        abort();
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = st_trace_open_fd(dup(fd), "input", err);
    if (!r) {
        if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
            abort(); /* the message must be one line */
        return 0;
    }
    struct st_trace_model *m = st_trace_model_new();
    struct st_trace_event ev;
    int k;
    while ((k = st_trace_next(r, &ev, err)) == 1)
        if (st_trace_model_apply(m, &ev) != 0)
            break;
    struct st_report rep;
    st_trace_model_report(m, st_trace_info(r), NULL, NULL, &rep);
    st_trace_model_free(m);
    void *mem = NULL;
    if (st_trace_footer_report(r, &rep, &mem, err) == 1) {
        /* Touch everything the footer gave. */
        uint64_t sum = 0;
        for (size_t i = 0; i < rep.nfiles; i++) {
            sum += strlen(rep.files[i].path) + rep.files[i].nstreams + rep.files[i].nsites;
            for (size_t s = 0; s < rep.files[i].nsites; s++)
                for (int f = 0; f < rep.files[i].sites[s].nframes; f++)
                    sum += rep.files[i].sites[s].frames[f].offset;
        }
        for (int i = 0; i < rep.argc; i++)
            sum += strlen(rep.argv[i]);
        if (sum == 42)
            (void)sum;
        st_trace_mem_free(mem);
    }
    st_trace_close(r);
    return 0;
}
