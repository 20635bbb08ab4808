/* static — a statically linked program: LD_PRELOAD cannot reach it. */
#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *fp = fopen(argc > 1 ? argv[1] : "/etc/hostname", "r");
    char buf[64];
    if (fp) {
        (void)!fread(buf, 1, sizeof buf, fp);
        fclose(fp);
    }
    return 0;
}
