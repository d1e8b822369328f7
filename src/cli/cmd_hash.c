/* cmd_hash.c: `czk hash`: Filecoin hashes from the command line.
 *   czk hash comm-d [--sector-size SIZE] FILE     comm_d of unpadded data (fr32-padded, zero-filled to the sector)
 *   czk hash poseidon [options] ELEMENT...        neptune Poseidon digest of field elements
 *   czk hash tree [--arity N] [--zero-fill] FILE  root of a Poseidon tree (default octree) over 32-byte leaves
 *   czk hash sha256 FILE                          SHA-256 and Filecoin's truncated SHA-256
 * FILE may be "-" for standard input. Files are streamed (memory does not grow with the file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/units.h"
#include "czk/filecoin.h"

static void print_hex(FILE *out, const uint8_t *b, size_t n) {
  fputs("0x", out);
  for (size_t i = 0; i < n; i++) fprintf(out, "%02x", b[i]);
}

static FILE *open_in(const char *path) {
  if (strcmp(path, "-") == 0) return stdin;
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "czk hash: cannot open '%s': %s\n", path, strerror(errno));
  return f;
}

static void close_in(FILE *f) {
  if (f && f != stdin) fclose(f);
}

/* Reads up to n bytes (short only at end of file). */
static size_t read_full(FILE *f, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    size_t k = fread(buf + got, 1, n - got, f);
    if (k == 0) break;
    got += k;
  }
  return got;
}

/* ------------------------------------------------------------------------------------------------ comm-d */
static int comm_d_usage(FILE *out) {
  fprintf(out, "usage: czk hash comm-d [--sector-size SIZE] FILE\n\n"
               "comm_d (the piece commitment of FILE placed at offset 0 of a sector): the unpadded bytes are fr32-padded\n"
               "(127 -> 128 bytes), zero-filled to SIZE padded bytes, and hashed in a binary tree of SHA-256 truncated to\n"
               "254 bits. SIZE is a power of two >= 128 (e.g. 2KiB, 32GiB); by default the smallest one that fits\n"
               "(2032 unpadded bytes make a 2 KiB sector). FILE '-' reads standard input. Prints comm_d as 0x-hex.\n");
  return out == stdout ? 0 : 2;
}

static int cmd_comm_d(int argc, char **argv) {
  uint64_t sector = 0;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--sector-size") == 0 && i + 1 < argc) {
      if (!czk__parse_size(argv[++i], &sector) || sector < 128 || (sector & (sector - 1))) {
        fprintf(stderr, "czk hash comm-d: bad --sector-size '%s' (a power of two >= 128, e.g. 2KiB)\n", argv[i]);
        return 2;
      }
    } else if (!path && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
      path = argv[i];
    } else {
      return comm_d_usage(stderr);
    }
  }
  if (!path) return comm_d_usage(stderr);
  FILE *f = open_in(path);
  if (!f) return 1;
  enum { BLOCKS = 1024 };
  uint8_t *in = malloc(127 * BLOCKS), *pad = malloc(128 * BLOCKS);
  czk_fc_stream *s = malloc(sizeof *s);
  int rc = 1;
  if (!in || !pad || !s) {
    fprintf(stderr, "czk hash comm-d: out of memory\n");
    goto out;
  }
  czk_status st = czk_fc_stream_init(s, CZK_FC_SHA256, 2);
  uint64_t total = 0;
  for (;;) {
    size_t n = read_full(f, in, 127 * BLOCKS);
    if (n == 0) break;
    total += n;
    if (sector && czk_fr32_padded_len(total) > sector) {
      fprintf(stderr, "czk hash comm-d: %s holds more than the %llu-byte sector (%llu unpadded bytes max)\n", path,
              (unsigned long long)sector, (unsigned long long)czk_fr32_unpadded_len(sector));
      goto out;
    }
    size_t blocks = (n + 126) / 127;
    memset(pad, 0, 128 * blocks);
    for (size_t b = 0; b < blocks; b++) { /* each 127-byte block pads independently to 128 bytes */
      size_t take = n - 127 * b < 127 ? n - 127 * b : 127;
      czk_fr32_pad(pad + 128 * b, in + 127 * b, take);
    }
    for (size_t k = 0; k < 4 * blocks && st == CZK_OK; k++) st = czk_fc_stream_push(s, pad + 32 * k);
    if (n < 127 * BLOCKS) break;
  }
  if (ferror(f)) {
    fprintf(stderr, "czk hash comm-d: read error on %s\n", path);
    goto out;
  }
  if (!sector) {
    uint64_t plen = czk_fr32_padded_len(total);
    sector = 128;
    while (sector < plen) sector <<= 1;
  }
  if (st == CZK_OK) st = czk_fc_stream_fill_zero(s, sector / 32);
  uint8_t root[32];
  if (st == CZK_OK) st = czk_fc_stream_root(s, root);
  if (st != CZK_OK) {
    fprintf(stderr, "czk hash comm-d: %s\n", czk_status_str(st));
    goto out;
  }
  print_hex(stdout, root, 32);
  printf("\n");
  rc = 0;
out:
  free(in);
  free(pad);
  free(s);
  close_in(f);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ poseidon */
static int poseidon_usage(FILE *out) {
  fprintf(out,
          "usage: czk hash poseidon [--arity N] [--type TYPE] [--strength standard|strengthened] ELEMENT...\n\n"
          "Poseidon over BLS12-381 Fr exactly as neptune. ELEMENTs are field elements in decimal or 0x-hex (< r).\n"
          "TYPE: merkle-tree (default; tag 2^arity - 1, needs arity elements), constant-length (tag n*2^64, any\n"
          "count, neptune's sponge when n > arity), custom:ID (tag ID*2^40, ID 1..256, arity elements),\n"
          "encryption (tag 2^32, arity elements). --arity defaults to the number of elements (1..36).\n"
          "Prints the digest as 0x-hex of its canonical 32 little-endian bytes (the Filecoin node bytes), then as\n"
          "a decimal integer.\n");
  return out == stdout ? 0 : 2;
}

static int cmd_poseidon(int argc, char **argv) {
  unsigned arity = 0;
  czk_poseidon_hash_type type = CZK_POSEIDON_MERKLE_TREE;
  uint64_t custom = 0;
  czk_poseidon_strength strength = CZK_POSEIDON_STANDARD;
  czk_fr *in = calloc((size_t)argc, sizeof *in);
  size_t n = 0;
  int rc = 2;
  if (!in) {
    fprintf(stderr, "czk hash poseidon: out of memory\n");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--arity") == 0 && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (*end || v < 1 || v > CZK_POSEIDON_MAX_ARITY) {
        fprintf(stderr, "czk hash poseidon: bad --arity '%s' (1..36)\n", argv[i]);
        goto out;
      }
      arity = (unsigned)v;
    } else if (strcmp(a, "--type") == 0 && i + 1 < argc) {
      const char *t = argv[++i];
      if (strcmp(t, "merkle-tree") == 0) type = CZK_POSEIDON_MERKLE_TREE;
      else if (strcmp(t, "constant-length") == 0) type = CZK_POSEIDON_CONSTANT_LENGTH;
      else if (strcmp(t, "encryption") == 0) type = CZK_POSEIDON_ENCRYPTION;
      else if (strncmp(t, "custom:", 7) == 0) {
        char *end;
        unsigned long v = strtoul(t + 7, &end, 10);
        if (*end || t[7] == 0 || v < 1 || v > 256) {
          fprintf(stderr, "czk hash poseidon: bad custom id in '%s' (1..256)\n", t);
          goto out;
        }
        type = CZK_POSEIDON_CUSTOM;
        custom = v;
      } else {
        fprintf(stderr, "czk hash poseidon: unknown --type '%s'\n", t);
        goto out;
      }
    } else if (strcmp(a, "--strength") == 0 && i + 1 < argc) {
      const char *s = argv[++i];
      if (strcmp(s, "standard") == 0) strength = CZK_POSEIDON_STANDARD;
      else if (strcmp(s, "strengthened") == 0) strength = CZK_POSEIDON_STRENGTHENED;
      else {
        fprintf(stderr, "czk hash poseidon: unknown --strength '%s'\n", s);
        goto out;
      }
    } else if (a[0] == '-' && a[1] == '-') {
      rc = poseidon_usage(stderr);
      goto out;
    } else {
      czk_status st = czk_fr_from_str(&in[n], a);
      if (st != CZK_OK) {
        fprintf(stderr, "czk hash poseidon: element '%s': %s\n", a, czk_status_str(st));
        goto out;
      }
      n++;
    }
  }
  if (n == 0) {
    rc = poseidon_usage(stderr);
    goto out;
  }
  if (!arity) {
    if (n > CZK_POSEIDON_MAX_ARITY) {
      fprintf(stderr, "czk hash poseidon: %zu elements: give --arity (1..36)\n", n);
      goto out;
    }
    arity = (unsigned)n;
  }
  const czk_poseidon *p;
  czk_status st = czk_poseidon_get(&p, arity, strength);
  czk_fr digest;
  uint64_t param = type == CZK_POSEIDON_CONSTANT_LENGTH ? n : custom;
  if (st == CZK_OK) st = czk_poseidon_hash(&digest, p, type, param, in, n);
  if (st == CZK_ERR_SIZE_MISMATCH) {
    fprintf(stderr, "czk hash poseidon: this hash type takes exactly %u elements (got %zu)\n", arity, n);
    rc = 1;
    goto out;
  }
  if (st != CZK_OK) {
    fprintf(stderr, "czk hash poseidon: %s\n", czk_status_str(st));
    rc = 1;
    goto out;
  }
  uint8_t le[32];
  char dec[80];
  czk_fr_to_bytes_le(le, &digest);
  czk_fr_to_dec(dec, &digest);
  print_hex(stdout, le, 32);
  printf("\n%s\n", dec);
  rc = 0;
out:
  free(in);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ tree */
static int tree_usage(FILE *out) {
  fprintf(out, "usage: czk hash tree [--arity 2|4|8|16] [--zero-fill] FILE\n\n"
               "Root of a Poseidon Merkle tree (MerkleTree tag, Standard; default arity 8, Filecoin's octree) over\n"
               "FILE read as 32-byte leaves, each the canonical little-endian encoding of a field element. The leaf\n"
               "count must be a power of the arity unless --zero-fill pads with zero leaves to the next one.\n"
               "FILE '-' reads standard input. Prints the root as 0x-hex (32 little-endian bytes) and in decimal.\n");
  return out == stdout ? 0 : 2;
}

static int cmd_tree(int argc, char **argv) {
  unsigned arity = 8;
  bool fill = false;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--arity") == 0 && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      arity = *end ? 0 : (unsigned)v; /* "8x" is not 8 */
      if (arity != 2 && arity != 4 && arity != 8 && arity != 16) {
        fprintf(stderr, "czk hash tree: --arity must be 2, 4, 8 or 16\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--zero-fill") == 0) {
      fill = true;
    } else if (!path && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
      path = argv[i];
    } else {
      return tree_usage(stderr);
    }
  }
  if (!path) return tree_usage(stderr);
  FILE *f = open_in(path);
  if (!f) return 1;
  enum { CHUNK = 4096 };
  uint8_t *buf = malloc(32 * CHUNK);
  czk_fc_stream *s = malloc(sizeof *s);
  int rc = 1;
  if (!buf || !s) {
    fprintf(stderr, "czk hash tree: out of memory\n");
    goto out;
  }
  czk_status st = czk_fc_stream_init(s, CZK_FC_POSEIDON, arity);
  for (;;) {
    size_t n = read_full(f, buf, 32 * CHUNK);
    if (n % 32) {
      fprintf(stderr, "czk hash tree: %s: size is not a multiple of 32 bytes\n", path);
      goto out;
    }
    for (size_t k = 0; k < n / 32 && st == CZK_OK; k++) {
      st = czk_fc_stream_push(s, buf + 32 * k);
      if (st == CZK_ERR_NOT_CANONICAL) {
        fprintf(stderr, "czk hash tree: leaf %llu is not a canonical field element (>= r)\n",
                (unsigned long long)s->leaves);
        goto out;
      }
    }
    if (n < 32 * CHUNK) break;
  }
  if (ferror(f)) {
    fprintf(stderr, "czk hash tree: read error on %s\n", path);
    goto out;
  }
  if (s->leaves == 0) {
    fprintf(stderr, "czk hash tree: %s is empty\n", path);
    goto out;
  }
  if (fill && st == CZK_OK) {
    uint64_t total = 1;
    while (total < s->leaves) total *= arity;
    st = czk_fc_stream_fill_zero(s, total);
  }
  uint8_t root[32];
  if (st == CZK_OK) st = czk_fc_stream_root(s, root);
  if (st == CZK_ERR_STATE) {
    fprintf(stderr, "czk hash tree: %llu leaves is not a power of %u (use --zero-fill)\n",
            (unsigned long long)s->leaves, arity);
    goto out;
  }
  if (st != CZK_OK) {
    fprintf(stderr, "czk hash tree: %s\n", czk_status_str(st));
    goto out;
  }
  czk_fr r;
  char dec[80];
  if (czk_fr_from_bytes_le(&r, root) != CZK_OK) goto out;
  czk_fr_to_dec(dec, &r);
  print_hex(stdout, root, 32);
  printf("\n%s\n", dec);
  rc = 0;
out:
  free(buf);
  free(s);
  close_in(f);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ sha256 */
static int cmd_sha256(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: czk hash sha256 FILE\n");
    return 2;
  }
  FILE *f = open_in(argv[1]);
  if (!f) return 1;
  uint8_t buf[65536], d[32];
  czk_sha256_ctx c;
  czk_sha256_init(&c);
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) czk_sha256_update(&c, buf, n);
  int err = ferror(f);
  close_in(f);
  if (err) {
    fprintf(stderr, "czk hash sha256: read error on %s\n", argv[1]);
    return 1;
  }
  czk_sha256_final(&c, d);
  printf("sha256    ");
  print_hex(stdout, d, 32);
  d[31] &= 0x3f;
  printf("\nfc-sha256 ");
  print_hex(stdout, d, 32);
  printf("\n");
  return 0;
}

/* ------------------------------------------------------------------------------------------------ dispatch */
static int usage(FILE *out) {
  fprintf(out, "usage: czk hash <what> [options]   (czk hash <what> --help)\n\n"
               "  comm-d    comm_d of a file of unpadded data (fr32, zero-filled sector, truncated SHA-256 tree)\n"
               "  poseidon  Poseidon digest of field elements (neptune; arity, hash type and strength options)\n"
               "  tree      root of a Poseidon octree (or arity 2/4/16) over a file of 32-byte leaves\n"
               "  sha256    SHA-256 and Filecoin's truncated SHA-256 of a file\n");
  return out == stdout ? 0 : 2;
}

int czk_cmd_hash(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  const char *w = argv[1];
  if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) return usage(stdout);
  bool help = czk__wants_help(argc - 1, argv + 1);
  if (strcmp(w, "comm-d") == 0) return help ? comm_d_usage(stdout) : cmd_comm_d(argc - 1, argv + 1);
  if (strcmp(w, "poseidon") == 0) return help ? poseidon_usage(stdout) : cmd_poseidon(argc - 1, argv + 1);
  if (strcmp(w, "tree") == 0) return help ? tree_usage(stdout) : cmd_tree(argc - 1, argv + 1);
  if (strcmp(w, "sha256") == 0) {
    if (help) {
      printf("usage: czk hash sha256 FILE\n\nPrints SHA-256 of FILE ('-' = stdin) and the digest with the two top bits "
             "of byte 31 cleared (Filecoin's Sha256Function).\n");
      return 0;
    }
    return cmd_sha256(argc - 1, argv + 1);
  }
  fprintf(stderr, "czk hash: unknown '%s'\n", w);
  return usage(stderr);
}
