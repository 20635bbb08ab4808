// rl_ifstream.cpp — a C++ program reading through std::ifstream: sequential
// reads, seekg + read, getline. libstdc++'s filebuf calls read() and lseek()
// itself (not stdio), so seektrace sees its POSIX wrappers here.
// usage: rl_ifstream BINARY TEXT; prints what it read, as a checksum.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: rl_ifstream BINARY TEXT\n";
        return 2;
    }
    uint64_t sum = 0, bytes = 0;
    {
        std::ifstream in(argv[1], std::ios::binary);
        std::vector<char> buf(1000);
        for (int i = 0; i < 200 && in; i++) {
            in.seekg((std::streamoff)((i * 7919) % 250000), std::ios::beg);
            in.read(buf.data(), 37 + i % 50);
            for (std::streamsize k = 0; k < in.gcount(); k++)
                sum = sum * 31 + (unsigned char)buf[k];
            bytes += (uint64_t)in.gcount();
        }
        in.clear();
        in.seekg(0, std::ios::end);
        bytes += (uint64_t)in.tellg();
    }
    {
        std::ifstream in(argv[2]);
        std::string line;
        uint64_t lines = 0;
        while (std::getline(in, line)) {
            lines++;
            for (char c : line)
                sum = sum * 33 + (unsigned char)c;
        }
        std::cout << "lines " << lines << "\n";
    }
    std::cout << "bytes " << bytes << " sum " << sum << "\n";
    return 0;
}
