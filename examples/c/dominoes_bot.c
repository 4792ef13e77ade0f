/* A TCO09 Dominoes bot for Arena's line protocol (docs/protocol.md), in C.
 * Strategy: the first tile that fits (left end first), else DRAW, else PASS.
 * Build: cc -O2 -o dominoes_bot examples/c/dominoes_bot.c
 * Run:   arena match --game dominoes --agent "exec:./dominoes_bot" --agent random */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_line(char *buf, size_t size) {
    if (!fgets(buf, (int)size, stdin)) return 0;
    buf[strcspn(buf, "\r\n")] = 0;
    return 1;
}

static int read_int(void) {
    char buf[64];
    if (!read_line(buf, sizeof buf)) exit(0);
    return atoi(buf);
}

static void read_tile(int *a, int *b) {
    char buf[64];
    if (!read_line(buf, sizeof buf) || sscanf(buf, "%d-%d", a, b) != 2) exit(0);
}

int main(void) {
    char method[64];
    int hand[64][2], line_l = 0, line_r = 0;
    while (read_line(method, sizeof method)) {
        if (strcmp(method, "init") == 0) {
            read_int();
            read_int();
            puts("0");
        } else if (strcmp(method, "reset") == 0) {
            int a, b;
            read_tile(&a, &b);
            puts("0");
        } else if (strcmp(method, "play") == 0) {
            int n = read_int();
            for (int i = 0; i < n && i < 64; i++) read_tile(&hand[i][0], &hand[i][1]);
            int m = read_int();
            for (int i = 0; i < m; i++) {
                int a, b;
                read_tile(&a, &b);
                if (i == 0) line_l = a;
                if (i == m - 1) line_r = b;
            }
            int stock = read_int();
            char answer[16] = "";
            for (int i = 0; i < n && !answer[0]; i++) {
                if (hand[i][0] == line_l || hand[i][1] == line_l) snprintf(answer, sizeof answer, "L%d", i);
                else if (hand[i][0] == line_r || hand[i][1] == line_r) snprintf(answer, sizeof answer, "R%d", i);
            }
            if (!answer[0]) strcpy(answer, stock > 0 ? "DRAW" : "PASS");
            puts(answer);
        } else {
            fprintf(stderr, "unknown call %s\n", method);
            return 1;
        }
        fflush(stdout); /* one line per call, flushed */
    }
    return 0;
}
