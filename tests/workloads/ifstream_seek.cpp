// std::ifstream seekg + read of 16 bytes. libstdc++'s filebuf calls read() and
// lseek() through the PLT, so seektrace sees them as POSIX calls:
//   buffered    the default filebuf buffer: each seekg drops it, each read
//               refills it (read of BUFSIZ-1 bytes) — requests seektrace sees
//               are libstdc++'s, not this program's 16 bytes
//   unbuffered  pubsetbuf(nullptr, 0): every read(16) reaches the kernel as is
//
// usage: ifstream_seek buffered|unbuffered FILE ITERATIONS SEED
#include <cstring>
#include <fstream>

#include "workload.h"

namespace {
constexpr std::streamsize RECORD = 16;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (std::strcmp(argv[1], "buffered") != 0 &&
                      std::strcmp(argv[1], "unbuffered") != 0))
        usage("ifstream_seek buffered|unbuffered FILE ITERATIONS SEED");
    const char *path = argv[2];
    long iterations = arg_long(argv[3]);
    uint64_t seed = static_cast<uint64_t>(arg_long(argv[4]));
    long last = file_size(path) - RECORD;

    std::ifstream in;
    if (std::strcmp(argv[1], "unbuffered") == 0)
        in.rdbuf()->pubsetbuf(nullptr, 0); // only takes effect before open
    in.open(path, std::ios::binary);
    if (!in)
        die(path);

    struct tally t = {};
    char record[RECORD];
    for (long i = 0; i < iterations; i++) {
        if (!in.seekg(random_offset(&seed, last)))
            die("seekg");
        in.read(record, RECORD);
        tally_call(&t, RECORD, static_cast<size_t>(in.gcount()));
    }
    in.close();
    return print_tally(&t);
}
