/* A statically linked program: LD_PRELOAD cannot touch it. */
#include <stdio.h>
int main(int argc, char **argv)
{
    printf("static hello %d\n", argc);
    return argc > 1 ? 5 : 0;
}
