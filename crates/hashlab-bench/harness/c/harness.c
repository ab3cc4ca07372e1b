/* The C harness of `hashlab bench --runtime`: speaks the line protocol of
 * ../PROTOCOL.md over stdin/stdout.
 *
 * Each library is compiled in only when its macro is defined:
 *   gcc -O2 -o harness harness.c -DHASHLAB_GCRYPT -DHASHLAB_NETTLE -lgcrypt -lnettle
 *   gcc -O2 -o harness harness.c -DHASHLAB_GCRYPT -lgcrypt
 *   gcc -O2 -o harness harness.c -DHASHLAB_NETTLE -lnettle
 *   gcc -O2 -o harness harness.c                      (null only)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HASHLAB_GCRYPT
#include <gcrypt.h>
#endif

#ifdef HASHLAB_NETTLE
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <nettle/sha3.h>
#include <nettle/version.h>
#endif

#define MAX_DIGEST 64

struct entry;

/* One complete one-shot digest of m[0..n) into out; returns its length. */
typedef size_t (*hash_fn)(const struct entry *e, const uint8_t *m, size_t n, uint8_t *out);

struct entry {
    const char *alg;
    const char *lib;
    hash_fn fn;
    int algo;    /* libgcrypt's algorithm id; 0 otherwise */
    size_t dlen; /* digest length in bytes */
};

/* ---- null: reads the message's first and last byte (0 when empty) ---- */

static size_t null_fn(const struct entry *e, const uint8_t *m, size_t n, uint8_t *out)
{
    (void)e;
    out[0] = n ? (uint8_t)(m[0] ^ m[n - 1]) : 0;
    return 1;
}

/* ---- libgcrypt ---- */

#ifdef HASHLAB_GCRYPT
static size_t gcrypt_fn(const struct entry *e, const uint8_t *m, size_t n, uint8_t *out)
{
    gcry_md_hash_buffer(e->algo, out, m, n);
    return e->dlen;
}

struct gcrypt_algo {
    const char *alg;
    int algo;
};

static const struct gcrypt_algo gcrypt_algos[] = {
    {"md5", GCRY_MD_MD5},
    {"sha1", GCRY_MD_SHA1},
    {"sha224", GCRY_MD_SHA224},
    {"sha256", GCRY_MD_SHA256},
    {"sha384", GCRY_MD_SHA384},
    {"sha512", GCRY_MD_SHA512},
#if GCRYPT_VERSION_NUMBER >= 0x010900
    {"sha512-224", GCRY_MD_SHA512_224},
    {"sha512-256", GCRY_MD_SHA512_256},
#endif
#if GCRYPT_VERSION_NUMBER >= 0x010700
    {"sha3-224", GCRY_MD_SHA3_224},
    {"sha3-256", GCRY_MD_SHA3_256},
    {"sha3-384", GCRY_MD_SHA3_384},
    {"sha3-512", GCRY_MD_SHA3_512},
#endif
#if GCRYPT_VERSION_NUMBER >= 0x010800
    {"blake2b", GCRY_MD_BLAKE2B_512},
    {"blake2s", GCRY_MD_BLAKE2S_256},
#endif
    /* GCRY_MD_CRC32 is zlib's CRC-32; its 4 bytes are the value big-endian. */
    {"crc32", GCRY_MD_CRC32},
};

static const char *gcrypt_version; /* NULL: libgcrypt unusable */
#endif

/* ---- nettle: *_init, *_update, *_digest on a context on the stack ---- */

#ifdef HASHLAB_NETTLE
#define NETTLE_FN(name, size)                                                   \
    static size_t nettle_##name(const struct entry *e, const uint8_t *m,        \
                                size_t n, uint8_t *out)                         \
    {                                                                           \
        struct name##_ctx ctx;                                                  \
        (void)e;                                                                \
        name##_init(&ctx);                                                      \
        name##_update(&ctx, n, m);                                              \
        name##_digest(&ctx, size, out);                                         \
        return size;                                                            \
    }

NETTLE_FN(md5, MD5_DIGEST_SIZE)
NETTLE_FN(sha1, SHA1_DIGEST_SIZE)
NETTLE_FN(sha224, SHA224_DIGEST_SIZE)
NETTLE_FN(sha256, SHA256_DIGEST_SIZE)
NETTLE_FN(sha384, SHA384_DIGEST_SIZE)
NETTLE_FN(sha512, SHA512_DIGEST_SIZE)
NETTLE_FN(sha512_224, SHA512_224_DIGEST_SIZE)
NETTLE_FN(sha512_256, SHA512_256_DIGEST_SIZE)
NETTLE_FN(sha3_224, SHA3_224_DIGEST_SIZE)
NETTLE_FN(sha3_256, SHA3_256_DIGEST_SIZE)
NETTLE_FN(sha3_384, SHA3_384_DIGEST_SIZE)
NETTLE_FN(sha3_512, SHA3_512_DIGEST_SIZE)

static const struct entry nettle_entries[] = {
    {"md5", "c nettle", nettle_md5, 0, MD5_DIGEST_SIZE},
    {"sha1", "c nettle", nettle_sha1, 0, SHA1_DIGEST_SIZE},
    {"sha224", "c nettle", nettle_sha224, 0, SHA224_DIGEST_SIZE},
    {"sha256", "c nettle", nettle_sha256, 0, SHA256_DIGEST_SIZE},
    {"sha384", "c nettle", nettle_sha384, 0, SHA384_DIGEST_SIZE},
    {"sha512", "c nettle", nettle_sha512, 0, SHA512_DIGEST_SIZE},
    {"sha512-224", "c nettle", nettle_sha512_224, 0, SHA512_224_DIGEST_SIZE},
    {"sha512-256", "c nettle", nettle_sha512_256, 0, SHA512_256_DIGEST_SIZE},
    {"sha3-224", "c nettle", nettle_sha3_224, 0, SHA3_224_DIGEST_SIZE},
    {"sha3-256", "c nettle", nettle_sha3_256, 0, SHA3_256_DIGEST_SIZE},
    {"sha3-384", "c nettle", nettle_sha3_384, 0, SHA3_384_DIGEST_SIZE},
    {"sha3-512", "c nettle", nettle_sha3_512, 0, SHA3_512_DIGEST_SIZE},
};
#endif

/* ---- the table of offers ---- */

static struct entry *table;
static size_t table_len;

static void add(struct entry e)
{
    struct entry *t = realloc(table, (table_len + 1) * sizeof *table);
    if (!t) {
        fputs("harness: out of memory\n", stderr);
        exit(1);
    }
    table = t;
    table[table_len++] = e;
}

static void build_table(void)
{
    add((struct entry){"null", "c harness", null_fn, 0, 1});
#ifdef HASHLAB_GCRYPT
    gcrypt_version = gcry_check_version(GCRYPT_VERSION);
    if (gcrypt_version) {
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        for (size_t i = 0; i < sizeof gcrypt_algos / sizeof gcrypt_algos[0]; i++) {
            int algo = gcrypt_algos[i].algo;
            /* Skips what this build of the library lacks or disables (FIPS). */
            if (gcry_md_test_algo(algo) != 0)
                continue;
            size_t dlen = gcry_md_get_algo_dlen(algo);
            if (dlen == 0 || dlen > MAX_DIGEST)
                continue;
            add((struct entry){gcrypt_algos[i].alg, "c libgcrypt", gcrypt_fn, algo, dlen});
        }
    }
#endif
#ifdef HASHLAB_NETTLE
    for (size_t i = 0; i < sizeof nettle_entries / sizeof nettle_entries[0]; i++)
        add(nettle_entries[i]);
#endif
}

static const struct entry *lookup(const char *alg, const char *lib)
{
    for (size_t i = 0; i < table_len; i++)
        if (strcmp(table[i].alg, alg) == 0 && strcmp(table[i].lib, lib) == 0)
            return &table[i];
    return NULL;
}

/* ---- cells ---- */

struct cell {
    unsigned long long id;
    const struct entry *e;
    uint8_t *msg;
    size_t size;
};

static struct cell *cells;
static size_t cells_len;

static struct cell *find_cell(unsigned long long id)
{
    for (size_t i = 0; i < cells_len; i++)
        if (cells[i].id == id)
            return &cells[i];
    return NULL;
}

/* ---- answers ---- */

static void answer_error(const char *msg)
{
    fputs("error\t", stdout);
    for (const char *p = msg; *p; p++)
        putchar(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p);
    putchar('\n');
}

static void answer_errorf2(const char *what, const char *arg)
{
    fputs("error\t", stdout);
    fputs(what, stdout);
    for (const char *p = arg; *p; p++)
        putchar(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p);
    putchar('\n');
}

/* A decimal count: digits only, no sign, no overflow. */
static int parse_count(const char *s, unsigned long long *out)
{
    if (*s == '\0')
        return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static const struct entry *lookup_or_answer(const char *alg, const char *lib)
{
    const struct entry *e = lookup(alg, lib);
    if (!e) {
        fputs("error\tnot offered: ", stdout);
        for (const char *p = alg; *p; p++)
            putchar(*p == '\r' ? ' ' : *p);
        putchar(' ');
        for (const char *p = lib; *p; p++)
            putchar(*p == '\r' ? ' ' : *p);
        putchar('\n');
    }
    return e;
}

static void do_hello(void)
{
    printf("hello\tgcc %s", __VERSION__);
#ifdef HASHLAB_GCRYPT
    printf(" libgcrypt %s", gcrypt_version ? gcrypt_version : "unusable");
#endif
#ifdef HASHLAB_NETTLE
    printf(" nettle %d.%d", nettle_version_major(), nettle_version_minor());
#endif
    putchar('\n');
}

static void do_offers(void)
{
#ifdef HASHLAB_GCRYPT
    if (!gcrypt_version)
        printf("absent\tc libgcrypt\tlibgcrypt %s is older than the headers' %s\n",
               gcry_check_version(NULL), GCRYPT_VERSION);
#endif
    for (size_t i = 0; i < table_len; i++)
        printf("offer\t%s\t%s\n", table[i].alg, table[i].lib);
    puts("end");
}

static void do_digest(char **f)
{
    const struct entry *e = lookup_or_answer(f[1], f[2]);
    if (!e)
        return;
    const char *hex = f[3];
    size_t hlen = strlen(hex);
    if (hlen % 2 != 0) {
        answer_error("bad hex: odd length");
        return;
    }
    size_t n = hlen / 2;
    uint8_t *m = malloc(n ? n : 1);
    if (!m) {
        answer_error("out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(m);
            answer_error("bad hex: invalid character");
            return;
        }
        m[i] = (uint8_t)(hi << 4 | lo);
    }
    uint8_t out[MAX_DIGEST];
    size_t len = e->fn(e, m, n, out);
    free(m);
    fputs("digest\t", stdout);
    for (size_t i = 0; i < len; i++)
        printf("%02x", out[i]);
    putchar('\n');
}

static void do_prepare(char **f)
{
    unsigned long long id, size;
    if (parse_count(f[1], &id) != 0) {
        answer_errorf2("bad cell: ", f[1]);
        return;
    }
    const struct entry *e = lookup_or_answer(f[2], f[3]);
    if (!e)
        return;
    if (parse_count(f[4], &size) != 0 || size > SIZE_MAX - 1) {
        answer_errorf2("bad size: ", f[4]);
        return;
    }
    struct cell *c = find_cell(id);
    if (c) { /* a second prepare replaces the cell: free its message first */
        free(c->msg);
        c->msg = NULL;
        c->size = 0;
        c->e = NULL;
    } else {
        struct cell *t = realloc(cells, (cells_len + 1) * sizeof *cells);
        if (!t) {
            answer_error("out of memory");
            return;
        }
        cells = t;
        c = &cells[cells_len++];
        c->id = id;
        c->msg = NULL;
        c->size = 0;
        c->e = NULL;
    }
    uint8_t *msg = malloc(size ? (size_t)size : 1);
    if (!msg) {
        answer_error("out of memory");
        return;
    }
    for (size_t i = 0; i < size; i++)
        msg[i] = (uint8_t)((i * 7 + 1) & 0xff);
    c->e = e;
    c->msg = msg;
    c->size = (size_t)size;
    puts("ok");
}

static void do_time(char **f)
{
    unsigned long long id, batch;
    if (parse_count(f[1], &id) != 0) {
        answer_errorf2("bad cell: ", f[1]);
        return;
    }
    struct cell *c = find_cell(id);
    if (!c || !c->e) {
        answer_errorf2("no cell prepared: ", f[1]);
        return;
    }
    if (parse_count(f[2], &batch) != 0) {
        answer_errorf2("bad batch: ", f[2]);
        return;
    }
    const struct entry *e = c->e;
    hash_fn fn = e->fn;
    const uint8_t *m = c->msg;
    size_t n = c->size;
    uint8_t out[MAX_DIGEST];
    unsigned sink = 0;
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long long i = 0; i < batch; i++) {
        fn(e, m, n, out);
        sink ^= out[0];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);

    long long ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
                   (long long)(t1.tv_nsec - t0.tv_nsec);
    printf("ns\t%lld\t%u\n", ns, sink);
}

/* Splits line at TABs in place; returns the number of fields (at most max;
 * more fields than max yields max + 1 without splitting further). */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return max + 1;
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            return n;
        *tab = '\0';
        p = tab + 1;
    }
}

static int want(size_t got, size_t n, const char *name)
{
    if (got == n)
        return 1;
    printf("error\t%s takes %zu fields\n", name, n);
    return 0;
}

int main(void)
{
    build_table();

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if ((size_t)len != strlen(line)) {
            answer_error("request contains a NUL byte");
            fflush(stdout);
            continue;
        }

        char *f[6];
        size_t nf = split(line, f, 5);
        const char *req = f[0];
        if (strcmp(req, "quit") == 0) {
            if (want(nf, 1, "quit"))
                break;
        } else if (strcmp(req, "hello") == 0) {
            if (want(nf, 1, "hello"))
                do_hello();
        } else if (strcmp(req, "offers") == 0) {
            if (want(nf, 1, "offers"))
                do_offers();
        } else if (strcmp(req, "digest") == 0) {
            if (want(nf, 4, "digest"))
                do_digest(f);
        } else if (strcmp(req, "prepare") == 0) {
            if (want(nf, 5, "prepare"))
                do_prepare(f);
        } else if (strcmp(req, "time") == 0) {
            if (want(nf, 3, "time"))
                do_time(f);
        } else {
            answer_error("unknown request");
        }
        if (fflush(stdout) != 0) {
            perror("harness: writing stdout");
            return 1;
        }
    }
    free(line);
    if (ferror(stdin)) {
        perror("harness: reading stdin");
        return 1;
    }
    return 0;
}
