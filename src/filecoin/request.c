/* request.c: request.json read with json-c, written with stdio (request.h). */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/jsondup.h"
#include "filecoin/request.h"

#define MAX_VANILLA_FILE (256u << 20)

void czk__hex32(char out[65], const uint8_t b[32]) {
  for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int czk__unhex32(uint8_t out[32], const char *hex) {
  if (!hex || strlen(hex) != 64) return -1;
  for (int i = 0; i < 32; i++) {
    unsigned v = 0;
    for (int k = 0; k < 2; k++) {
      char c = hex[2 * i + k];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
      else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
      else return -1;
    }
    out[i] = (uint8_t)v;
  }
  return 0;
}

void czk__fc_request_free(czk__fc_request *r) {
  if (!r) return;
  for (size_t i = 0; r->vanilla && i < r->n_vanilla; i++) free(r->vanilla[i]);
  free(r->vanilla_one);
  free(r->vanilla);
  free(r->vanilla_len);
  free(r->sector_ids);
  free(r->comm_r);
  memset(r, 0, sizeof *r);
}

static uint8_t *slurp(const char *path, size_t *len, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n >= 0 && (size_t)n <= max && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
      *len = fread(buf, 1, (size_t)n, f);
      buf[*len] = 0;
      if (*len != (size_t)n) {
        free(buf);
        buf = NULL;
      }
    }
  }
  fclose(f);
  return buf;
}

static int fail(char *err, size_t len, const char *what, const char *path) {
  snprintf(err, len, "%s: %s", path, what);
  return -1;
}

static bool get_u64(json_object *o, const char *key, uint64_t *v, bool required) {
  json_object *x;
  if (!json_object_object_get_ex(o, key, &x)) return !required;
  if (!json_object_is_type(x, json_type_int)) return false;
  int64_t s = json_object_get_int64(x);
  if (s < 0) return false;
  *v = json_object_get_uint64(x);
  return true;
}

int czk__fc_request_load(const char *path, czk__fc_request *r, char *err, size_t err_len) {
  memset(r, 0, sizeof *r);
  size_t len;
  char *text = (char *)slurp(path, &len, 16u << 20);
  if (!text) return fail(err, err_len, "cannot read (missing, unreadable or larger than 16 MiB)", path);
  json_tokener *tok = json_tokener_new();
  json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
  bool ok = root && json_tokener_get_error(tok) == json_tokener_success;
  if (tok) json_tokener_free(tok);
  char dup[80];
  if (ok && czk__json_duplicate_key(text, len, dup, sizeof dup)) { /* json-c keeps the last of two: refuse both */
    free(text);
    json_object_put(root);
    char what[160];
    snprintf(what, sizeof what, "duplicate key \"%s\" in a JSON object", dup);
    return fail(err, err_len, what, path);
  }
  if (!ok || !json_object_is_type(root, json_type_object)) {
    free(text);
    json_object_put(root);
    return fail(err, err_len, "not a JSON object", path);
  }
  free(text);
  int rc = -1;
  json_object *x, *arr;
  uint64_t pk = 0, part = 0;
  if (json_object_object_get_ex(root, "kind", &x) && json_object_is_type(x, json_type_string))
    snprintf(r->kind, sizeof r->kind, "%s", json_object_get_string(x));
  if (!get_u64(root, "proof_kind", &pk, true) || pk > 200) {
    fail(err, err_len, "\"proof_kind\" missing or not a small integer", path);
    goto out;
  }
  r->proof_kind = (int)pk;
  if (!get_u64(root, "registered_proof", &r->registered_proof, true) ||
      !get_u64(root, "sector_size", &r->sector_size, false) || !get_u64(root, "miner_id", &r->miner_id, false) ||
      !get_u64(root, "partition_index", &part, false) || part > UINT32_MAX) {
    fail(err, err_len, "registered_proof / sector_size / miner_id / partition_index: missing or not an unsigned integer",
         path);
    goto out;
  }
  r->partition_index = (uint32_t)part;
  bool post = r->proof_kind == 3 || r->proof_kind == 4;
  if (!get_u64(root, "sector_number", &r->sector_number, false)) {
    fail(err, err_len, "\"sector_number\" is not an unsigned integer", path);
    goto out;
  }
  if (json_object_object_get_ex(root, "randomness", &x)
          ? !json_object_is_type(x, json_type_string) || czk__unhex32(r->randomness, json_object_get_string(x)) != 0
          : post) {
    fail(err, err_len, "\"randomness\" missing or not 64 hex digits", path);
    goto out;
  }
  if (json_object_object_get_ex(root, "comm_r_old", &x) || r->proof_kind == 2) {
    static const char *keys[3] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    uint8_t *dst[3] = {r->comm_r_old, r->comm_d_new, r->comm_r_new};
    for (int i = 0; i < 3; i++)
      if (!json_object_object_get_ex(root, keys[i], &x) || !json_object_is_type(x, json_type_string) ||
          czk__unhex32(dst[i], json_object_get_string(x)) != 0) {
        snprintf(err, err_len, "%s: \"%s\" missing or not 64 hex digits", path, keys[i]);
        goto out;
      }
    r->has_comms = true;
  }
  if (json_object_object_get_ex(root, "sectors", &arr)) {
    if (!json_object_is_type(arr, json_type_array)) {
      fail(err, err_len, "\"sectors\" is not an array", path);
      goto out;
    }
    size_t n = json_object_array_length(arr);
    r->sector_ids = calloc(n + 1, sizeof *r->sector_ids);
    r->comm_r = calloc(n + 1, 32);
    if (!r->sector_ids || !r->comm_r) goto out;
    for (size_t i = 0; i < n; i++) {
      json_object *s = json_object_array_get_idx(arr, i), *c;
      if (!json_object_is_type(s, json_type_object) || !get_u64(s, "sector_id", &r->sector_ids[i], true) ||
          !json_object_object_get_ex(s, "comm_r", &c) || !json_object_is_type(c, json_type_string) ||
          czk__unhex32(r->comm_r[i], json_object_get_string(c)) != 0) {
        snprintf(err, err_len, "%s: sectors[%zu]: needs \"sector_id\" and \"comm_r\" (64 hex digits)", path, i);
        goto out;
      }
      r->n_sectors++;
    }
  }
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) slash[1] = 0;
  else dir[0] = 0;
  if (json_object_object_get_ex(root, "vanilla_proof", &x)) {
    const char *name = json_object_is_type(x, json_type_string) ? json_object_get_string(x) : NULL;
    char file[8300];
    if (name) snprintf(file, sizeof file, "%s%s", name[0] == '/' ? "" : dir, name);
    if (!name || !(r->vanilla_one = slurp(file, &r->vanilla_one_len, MAX_VANILLA_FILE))) {
      fail(err, err_len, "\"vanilla_proof\": not a readable file name", path);
      goto out;
    }
    if (!json_object_object_get_ex(root, "vanilla_proofs", &arr)) {
      rc = 0;
      goto out;
    }
  }
  if (!json_object_object_get_ex(root, "vanilla_proofs", &arr) || !json_object_is_type(arr, json_type_array)) {
    fail(err, err_len, "\"vanilla_proofs\" missing or not an array of file names", path);
    goto out;
  }
  size_t n = json_object_array_length(arr);
  r->vanilla = calloc(n + 1, sizeof *r->vanilla);
  r->vanilla_len = calloc(n + 1, sizeof *r->vanilla_len);
  if (!r->vanilla || !r->vanilla_len) goto out;
  for (size_t i = 0; i < n; i++) {
    json_object *s = json_object_array_get_idx(arr, i);
    if (!json_object_is_type(s, json_type_string)) {
      snprintf(err, err_len, "%s: vanilla_proofs[%zu] is not a file name", path, i);
      goto out;
    }
    const char *name = json_object_get_string(s);
    char file[8300];
    snprintf(file, sizeof file, "%s%s", name[0] == '/' ? "" : dir, name);
    r->vanilla[i] = slurp(file, &r->vanilla_len[i], MAX_VANILLA_FILE);
    if (!r->vanilla[i]) {
      snprintf(err, err_len, "%s: vanilla_proofs[%zu]: cannot read %s", path, i, file);
      goto out;
    }
    r->n_vanilla++;
  }
  rc = 0;
out:
  json_object_put(root);
  if (rc) czk__fc_request_free(r);
  return rc;
}

int czk__fc_request_write(const char *dir, const czk__fc_request *r, const char *const *vanilla_names) {
  char path[4200], hex[65];
  snprintf(path, sizeof path, "%s/request.json", dir);
  czk__afile af; /* temp + fsync + rename */
  if (czk__afile_open(&af, path, "w") != CZK_OK) return -1;
  FILE *f = af.f;
  uint8_t prover[32] = {0};
  uint64_t m = r->miner_id;
  for (int i = 0; i < 32; i++) { /* unsigned LEB128 of the actor id (Go address payload) */
    prover[i] = (uint8_t)(m & 0x7f);
    m >>= 7;
    if (m) prover[i] |= 0x80;
    else break;
  }
  fprintf(f, "{\n  \"kind\": \"%s\",\n  \"proof_kind\": %d,\n  \"registered_proof\": %llu,\n", r->kind, r->proof_kind,
          (unsigned long long)r->registered_proof);
  fprintf(f, "  \"sector_size\": %llu,\n  \"miner_id\": %llu,\n", (unsigned long long)r->sector_size,
          (unsigned long long)r->miner_id);
  czk__hex32(hex, prover);
  fprintf(f, "  \"prover_id\": \"%s\",\n", hex);
  if (r->vanilla_one_name) { /* PoRep / SnapDeals: one vanilla file and the sector number */
    fprintf(f, "  \"sector_number\": %llu,\n  \"vanilla_proof\": \"%s\"\n}\n", (unsigned long long)r->sector_number,
            r->vanilla_one_name);
    goto done;
  }
  czk__hex32(hex, r->randomness);
  fprintf(f, "  \"randomness\": \"%s\",\n  \"partition_index\": %u,\n", hex, r->partition_index);
  if (r->has_comms) {
    czk__hex32(hex, r->comm_r_old);
    fprintf(f, "  \"comm_r_old\": \"%s\",\n", hex);
    czk__hex32(hex, r->comm_d_new);
    fprintf(f, "  \"comm_d_new\": \"%s\",\n", hex);
    czk__hex32(hex, r->comm_r_new);
    fprintf(f, "  \"comm_r_new\": \"%s\",\n", hex);
  }
  fprintf(f, "  \"sectors\": [");
  for (size_t i = 0; i < r->n_sectors; i++) {
    czk__hex32(hex, r->comm_r[i]);
    fprintf(f, "%s\n    {\"sector_id\": %llu, \"comm_r\": \"%s\"}", i ? "," : "", (unsigned long long)r->sector_ids[i],
            hex);
  }
  fprintf(f, "\n  ],\n  \"vanilla_proofs\": [");
  for (size_t i = 0; i < r->n_vanilla; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", vanilla_names[i]);
  fprintf(f, "]\n}\n");
done:
  return czk__afile_commit(&af) == CZK_OK ? 0 : -1;
}
