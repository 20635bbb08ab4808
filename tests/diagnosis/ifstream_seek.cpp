// ifstream_seek — a C++ program whose I/O goes through libstdc++.
//
//   ifstream_seek FILE SEEKS
//
// SEEKS times: seekg to an offset outside the filebuf's buffer, then read 16
// bytes. The offsets alternate between the first and the second half of FILE,
// so every read makes libstdc++ refill its buffer with a read() of about 8 KiB
// of bytes it read before: rule "reread". The read() and lseek() syscalls are
// made inside libstdc++; the report must charge them to this file's lines,
// not to libstdc++. Prints {"seeks", "requested", "delivered"}.
// Built -O0 -g.
#include <fstream>
#include <sys/stat.h>

#include "diag.h"

namespace {
constexpr std::streamsize RECORD = 16;

__attribute__((noinline)) long read_records(std::ifstream &in, long seeks, long half)
{
    char record[RECORD];
    long delivered = 0;
    for (long i = 0; i < seeks; i++) {
        std::streamoff at = (i % 2 ? half : 0) + 100 + (i / 2 % 8) * RECORD;
        if (!in.seekg(at)) // SITE:seekg
            die("seekg");
        in.read(record, RECORD); // SITE:read
        delivered += static_cast<long>(in.gcount());
    }
    return delivered;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 3)
        usage("ifstream_seek FILE SEEKS");
    long seeks = arg_long(argv[2]);
    struct stat st;
    if (stat(argv[1], &st) != 0 || st.st_size < (2L << 20))
        usage("FILE must be at least 2 MiB");
    std::ifstream in(argv[1], std::ios::binary);
    if (!in)
        die(argv[1]);
    long delivered = read_records(in, seeks, st.st_size / 2 & ~0xfffffL);
    in.close();
    return print_counts("seeks", seeks, "requested", seeks * RECORD, "delivered", delivered,
                        static_cast<char *>(nullptr));
}
