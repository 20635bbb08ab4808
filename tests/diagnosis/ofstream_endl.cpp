// ofstream_endl — rule small-direct-writes on a C++ program: libstdc++'s
// filebuf calls write() itself, and std::endl flushes it every line.
//
//   ofstream_endl FILE LINES endl|newline
//
// LINES lines of "record N" (8 to 13 bytes with the newline), each ended
// with std::endl (a write() per line) or '\n' (a write() per full buffer,
// the twin). Prints {"lines", "written"}: written, the bytes of the lines.
// Built -O0 -g.
#include <cstring>
#include <fstream>
#include <string>

#include "diag.h"

namespace {
__attribute__((noinline)) long write_lines(std::ofstream &out, long lines, bool endl)
{
    long written = 0;
    for (long i = 0; i < lines; i++) {
        std::string line = "record " + std::to_string(i);
        out << line;
        if (endl)
            out << std::endl; // SITE:endl
        else
            out << '\n';
        written += static_cast<long>(line.size()) + 1;
    }
    return written;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 4 || (std::strcmp(argv[3], "endl") != 0 && std::strcmp(argv[3], "newline") != 0))
        usage("ofstream_endl FILE LINES endl|newline");
    long lines = arg_long(argv[2]);
    std::ofstream out(argv[1]);
    if (!out)
        die(argv[1]);
    long written = write_lines(out, lines, std::strcmp(argv[3], "endl") == 0);
    out.close();
    if (!out)
        die("close");
    return print_counts("lines", lines, "written", written, (char *)0);
}
