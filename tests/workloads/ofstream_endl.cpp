// std::ofstream writing lines. libstdc++'s filebuf calls write() and writev()
// through the PLT, so seektrace sees them as the program's POSIX calls:
//   endl   "record N" << std::endl: every line flushed, one write() each
//   big    every 100th line a 20,000-byte one, longer than filebuf's buffer:
//          the buffered lines and the long one leave in one writev()
//   plain  '\n' only: the buffer leaves when full, and at close
//
// usage: ofstream_endl endl|big|plain FILE LINES
#include <cstring>
#include <fstream>
#include <string>

#include "workload.h"

int main(int argc, char **argv)
{
    if (argc != 4 || (std::strcmp(argv[1], "endl") != 0 && std::strcmp(argv[1], "big") != 0 &&
                      std::strcmp(argv[1], "plain") != 0))
        usage("ofstream_endl endl|big|plain FILE LINES");
    long lines = arg_long(argv[3]);
    std::ofstream out(argv[2]);
    const std::string big(20000, 'x');
    for (long i = 0; i < lines && out; i++) {
        out << "record " << i;
        if (std::strcmp(argv[1], "big") == 0 && i % 100 == 0)
            out << ' ' << big;
        if (std::strcmp(argv[1], "endl") == 0)
            out << std::endl;
        else
            out << '\n';
    }
    out.close();
    return out ? 0 : 1;
}
