/* config.c: the daemon configuration table (config.h) and its parsers/printers.
 * Invariants: every key has exactly one entry in CZK_CONFIG_TABLE, and the file parser, the flags, --help,
 * --dump-config and the markdown table all iterate that table (nothing is listed twice); a value is parsed by its
 * type (sizes and durations with core/units.h) and a rejected value leaves the previous one in place; string values
 * are heap copies owned by the czk__config (czk__config_free releases them). Precedence: defaults, then --config FILE,
 * then the other flags in order. */
#include "api/config.h"

#include "core/units.h"
#include "czk/engine.h"
#include "czk/log.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { T_STR, T_SIZE, T_UINT, T_BOOL, T_DUR } cfg_type;

typedef struct {
  cfg_type type;
  const char *key;
  const char *def;
  const char *help;
  size_t off;
} cfg_entry;

static const cfg_entry k_table[] = {
#define CZK__CFG_ENTRY(type, key, def, help) {T_##type, #key, def, help, offsetof(czk__config, key)},
    CZK_CONFIG_TABLE(CZK__CFG_ENTRY)
#undef CZK__CFG_ENTRY
};
#define N_KEYS (sizeof k_table / sizeof k_table[0])
_Static_assert(sizeof k_table / sizeof k_table[0] <= 64, "set_by_user too small");

static const char *type_name(cfg_type t) {
  switch (t) {
  case T_STR: return "string";
  case T_SIZE: return "size";
  case T_UINT: return "integer";
  case T_BOOL: return "bool";
  case T_DUR: return "duration";
  }
  return "?";
}

static czk_status set_entry(czk__config *c, size_t i, const char *value, char *err, size_t errlen) {
  const cfg_entry *e = &k_table[i];
  char *base = (char *)c + e->off;
  switch (e->type) {
  case T_STR: {
    /* a flat file's line holds at most 4095 bytes: a longer value (a TOML file has no such limit) would make
     * --dump-config write a file that does not load back (found by fuzz_config on the 16-core run, session 11) */
    size_t vl = strlen(value);
    if (vl > CZK__CONFIG_MAX_VALUE) {
      snprintf(err, errlen, "%s: value too long (%zu bytes; at most %d)", e->key, vl, CZK__CONFIG_MAX_VALUE);
      return CZK_ERR_CONFIG;
    }
    /* the file format has no escapes: a control character (a newline from a TOML "\n") or a double quote would make
     * --dump-config write a different file (or another key) than the one read */
    for (const char *p = value; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '"') {
        snprintf(err, errlen, "%s: a control character or double quote at offset %zu is not allowed", e->key,
                 (size_t)(p - value));
        return CZK_ERR_CONFIG;
      }
    char *dup = strdup(value);
    if (!dup) return CZK_ERR_NOMEM;
    free(*(char **)base);
    *(char **)base = dup;
    return CZK_OK;
  }
  case T_SIZE:
    if (*value == 0) { /* computed at start */
      *(uint64_t *)base = 0;
      return CZK_OK;
    }
    if (!czk__parse_size(value, (uint64_t *)base)) {
      snprintf(err, errlen, "%s: '%s' is not a size (e.g. 64GiB, 512MiB, 1000000)", e->key, value);
      return CZK_ERR_CONFIG;
    }
    return CZK_OK;
  case T_UINT: {
    errno = 0;
    char *end;
    if (!isdigit((unsigned char)*value)) goto bad_uint;
    unsigned long long v = strtoull(value, &end, 10);
    if (errno || *end) goto bad_uint;
    if (v > 1000000) {
      snprintf(err, errlen, "%s: %llu is out of range (at most 1000000)", e->key, v);
      return CZK_ERR_CONFIG;
    }
    *(uint64_t *)base = v;
    return CZK_OK;
  bad_uint:
    snprintf(err, errlen, "%s: '%s' is not a non-negative integer", e->key, value);
    return CZK_ERR_CONFIG;
  }
  case T_BOOL:
    if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "on") || !strcmp(value, "1")) {
      *(bool *)base = true;
    } else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "off") || !strcmp(value, "0")) {
      *(bool *)base = false;
    } else {
      snprintf(err, errlen, "%s: '%s' is not a bool (true/false)", e->key, value);
      return CZK_ERR_CONFIG;
    }
    return CZK_OK;
  case T_DUR:
    if (!czk__parse_duration_ms(value, (uint64_t *)base)) {
      snprintf(err, errlen, "%s: '%s' is not a duration (e.g. 30s, 500ms, 2m)", e->key, value);
      return CZK_ERR_CONFIG;
    }
    return CZK_OK;
  }
  return CZK_ERR_INTERNAL;
}

czk_status czk__config_init(czk__config *c) {
  memset(c, 0, sizeof *c);
  char err[256];
  for (size_t i = 0; i < N_KEYS; i++) {
    czk_status st = set_entry(c, i, k_table[i].def, err, sizeof err);
    if (st != CZK_OK) return st;
  }
  return CZK_OK;
}

void czk__config_free(czk__config *c) {
  for (size_t i = 0; i < c->nwarnings; i++) free(c->warnings[i]);
  free(c->warnings);
  c->warnings = NULL;
  c->nwarnings = 0;
  for (size_t i = 0; i < N_KEYS; i++)
    if (k_table[i].type == T_STR) {
      char **p = (char **)((char *)c + k_table[i].off);
      free(*p);
      *p = NULL;
    }
}

static long find_key(const char *key, size_t len) {
  for (size_t i = 0; i < N_KEYS; i++) {
    const char *k = k_table[i].key;
    if (strlen(k) != len) continue;
    size_t j = 0;
    for (; j < len; j++) {
      char a = key[j] == '-' ? '_' : key[j];
      if (a != k[j]) break;
    }
    if (j == len) return (long)i;
  }
  return -1;
}

long czk__config_key_index(const char *key) { return find_key(key, strlen(key)); }

czk_status czk__config_set(czk__config *c, const char *key, const char *value, char *err, size_t errlen) {
  long i = find_key(key, strlen(key));
  if (i < 0) {
    snprintf(err, errlen, "%s: unknown configuration key", key);
    return CZK_ERR_CONFIG;
  }
  czk_status st = set_entry(c, (size_t)i, value, err, errlen);
  if (st == CZK_OK) c->set_by_user[i] = true;
  return st;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

czk_status czk__config_load_file(czk__config *c, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return CZK_ERR_IO;
  }
  czk_status st = czk__config_load_stream(c, path, f, err, errlen);
  fclose(f);
  return st;
}

czk_status czk__config_load_mem(czk__config *c, const char *name, const void *text, size_t len, char *err,
                                size_t errlen) {
  static const char empty[1];
  FILE *f = fmemopen((void *)(len ? text : empty), len ? len : 1, "r");
  if (!f) {
    snprintf(err, errlen, "%s: cannot read: %s", name, strerror(errno));
    return CZK_ERR_IO;
  }
  if (!len) (void)fgetc(f); /* fmemopen needs a size >= 1: an empty text is a stream at its end */
  czk_status st = czk__config_load_stream(c, name, f, err, errlen);
  fclose(f);
  return st;
}

czk_status czk__config_load_stream(czk__config *c, const char *path, FILE *f, char *err, size_t errlen) {
  if (czk__config_is_toml_stream(path, f)) return czk__config_load_toml_stream(c, path, f, err, errlen);
  char line[4096];
  int lineno = 0;
  czk_status st = CZK_OK;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t ll = strlen(line);
    if (ll == sizeof line - 1 && line[ll - 1] != '\n') {
      snprintf(err, errlen, "%s:%d: line too long", path, lineno);
      st = CZK_ERR_CONFIG;
      break;
    }
    /* strip a comment that is not inside quotes */
    bool inq = false;
    for (char *p = line; *p; p++) {
      if (*p == '"') inq = !inq;
      else if (*p == '#' && !inq) {
        *p = 0;
        break;
      }
    }
    char *s = trim(line);
    if (!*s) continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
      st = CZK_ERR_CONFIG;
      break;
    }
    *eq = 0;
    char *key = trim(s), *val = trim(eq + 1);
    size_t vl = strlen(val);
    if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
      val[vl - 1] = 0;
      val++;
    } else if (vl && (val[0] == '"' || val[vl - 1] == '"')) {
      snprintf(err, errlen, "%s:%d: %s: unbalanced quotes", path, lineno, key);
      st = CZK_ERR_CONFIG;
      break;
    }
    char kerr[512];
    st = czk__config_set(c, key, val, kerr, sizeof kerr);
    if (st != CZK_OK) {
      snprintf(err, errlen, "%s:%d: %s", path, lineno, kerr);
      break;
    }
  }
  return st;
}

czk_status czk__config_parse_args(czk__config *c, int argc, char **argv, int first, char *err, size_t errlen) {
  /* --config first, so flags override the file */
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--config") == 0) {
      if (i + 1 >= argc) {
        snprintf(err, errlen, "--config: missing FILE");
        return CZK_ERR_CONFIG;
      }
      CZK_TRY(czk__config_load_file(c, argv[i + 1], err, errlen));
      i++;
    } else if (strncmp(a, "--config=", 9) == 0) {
      CZK_TRY(czk__config_load_file(c, a + 9, err, errlen));
    }
  }
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--config") == 0) {
      i++;
      continue;
    }
    if (strncmp(a, "--config=", 9) == 0) continue;
    if (strncmp(a, "--", 2) != 0) {
      snprintf(err, errlen, "unexpected argument '%s'", a);
      return CZK_ERR_CONFIG;
    }
    const char *k = a + 2;
    const char *eq = strchr(k, '=');
    size_t klen = eq ? (size_t)(eq - k) : strlen(k);
    long idx = find_key(k, klen);
    if (idx < 0) {
      snprintf(err, errlen, "--%.*s: unknown option (see --help)", (int)klen, k);
      return CZK_ERR_CONFIG;
    }
    const char *val;
    if (eq) {
      val = eq + 1;
    } else if (k_table[idx].type == T_BOOL && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)) {
      val = "true"; /* a bare boolean flag */
    } else {
      if (i + 1 >= argc) {
        snprintf(err, errlen, "--%s: missing value", k);
        return CZK_ERR_CONFIG;
      }
      val = argv[++i];
    }
    czk_status st = set_entry(c, (size_t)idx, val, err, errlen);
    if (st != CZK_OK) return st;
    c->set_by_user[idx] = true;
  }
  return CZK_OK;
}

uint64_t czk__config_physical_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psz <= 0) return 0;
  return (uint64_t)pages * (uint64_t)psz;
}

czk_status czk__config_private_dir(const char *dir, char *err, size_t errlen) {
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return CZK_ERR_CONFIG;
  }
  struct stat st;
  if (lstat(dir, &st) != 0) {
    snprintf(err, errlen, "cannot stat %s: %s", dir, strerror(errno));
    return CZK_ERR_CONFIG;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s exists and is not a directory (%s)", dir, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
    return CZK_ERR_CONFIG;
  }
  if (st.st_uid != geteuid()) {
    snprintf(err, errlen, "%s is owned by uid %u, not by this user (uid %u): another user could replace the socket",
             dir, (unsigned)st.st_uid, (unsigned)geteuid());
    return CZK_ERR_CONFIG;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(err, errlen, "%s is writable by group or others (mode %03o): another user could replace the socket", dir,
             (unsigned)(st.st_mode & 0777));
    return CZK_ERR_CONFIG;
  }
  return CZK_OK;
}

czk_status czk__config_socket_perms(const czk__config *c, unsigned *mode, long *gid, char *err, size_t errlen) {
  const char *m = c->socket_mode ? c->socket_mode : "";
  char *end;
  errno = 0;
  unsigned long v = strtoul(m, &end, 8);
  if (!*m || *end || errno || v > 0777 || *m == '-' || *m == '+') {
    snprintf(err, errlen, "socket_mode: '%s' is not an octal mode up to 0777 (e.g. 0660)", m);
    return CZK_ERR_CONFIG;
  }
  if ((v & 0600) != 0600) {
    snprintf(err, errlen, "socket_mode: %04lo leaves the daemon's own user without read and write", v);
    return CZK_ERR_CONFIG;
  }
  *mode = (unsigned)v;
  *gid = -1;
  const char *g = c->socket_group ? c->socket_group : "";
  if (!*g) return CZK_OK;
  errno = 0;
  unsigned long n = strtoul(g, &end, 10);
  if (isdigit((unsigned char)*g) && !*end && !errno && n < 0x7fffffff) {
    *gid = (long)n;
    return CZK_OK;
  }
  struct group gr, *res = NULL;
  char gbuf[16384];
  int rc = getgrnam_r(g, &gr, gbuf, sizeof gbuf, &res);
  if (rc != 0 || !res) {
    snprintf(err, errlen, "socket_group: no group '%s'%s%s", g, rc ? ": " : "", rc ? strerror(rc) : "");
    return CZK_ERR_CONFIG;
  }
  *gid = (long)res->gr_gid;
  return CZK_OK;
}

/* "http://host:port[/]" (the reference bench's form) -> "host:port" */
static czk_status strip_http(char **addr) {
  if (!*addr || strncmp(*addr, "http://", 7) != 0) return CZK_OK;
  char *t = strdup(*addr + 7);
  if (!t) return CZK_ERR_NOMEM;
  size_t n = strlen(t);
  while (n && t[n - 1] == '/') t[--n] = 0;
  free(*addr);
  *addr = t;
  return CZK_OK;
}

czk_status czk__config_finalize(czk__config *c, char *err, size_t errlen) {
  char buf[4096];
  CZK_TRY(strip_http(&c->listen));
  CZK_TRY(strip_http(&c->http));
  if (!c->listen || !*c->listen) {
    const char *rt = getenv("XDG_RUNTIME_DIR");
    if (rt && *rt && access(rt, W_OK) == 0) {
      snprintf(buf, sizeof buf, "unix:%s/czk.sock", rt);
    } else {
      char dir[256], why[384];
      snprintf(dir, sizeof dir, "/tmp/czk-%u", (unsigned)getuid());
      if (czk__config_private_dir(dir, why, sizeof why) != CZK_OK) {
        snprintf(err, errlen, "listen: %s (set XDG_RUNTIME_DIR or --listen)", why);
        return CZK_ERR_CONFIG;
      }
      snprintf(buf, sizeof buf, "unix:%s/czk.sock", dir);
    }
    free(c->listen);
    c->listen = strdup(buf);
  }
  if (!c->keys_dir || !*c->keys_dir) {
    const char *dh = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (dh && *dh) snprintf(buf, sizeof buf, "%s/czk/keys", dh);
    else if (home && *home) snprintf(buf, sizeof buf, "%s/.local/share/czk/keys", home);
    else {
      char dir[256], why[384];
      snprintf(dir, sizeof dir, "/tmp/czk-%u", (unsigned)getuid());
      if (czk__config_private_dir(dir, why, sizeof why) != CZK_OK) {
        snprintf(err, errlen, "keys_dir: %s (set HOME, XDG_DATA_HOME or --keys-dir)", why);
        return CZK_ERR_CONFIG;
      }
      snprintf(buf, sizeof buf, "%s/keys", dir);
    }
    free(c->keys_dir);
    c->keys_dir = strdup(buf);
  }
  if (!c->param_dir || !*c->param_dir) {
    const char *fc = getenv("FIL_PROOFS_PARAMETER_CACHE");
    free(c->param_dir);
    c->param_dir = strdup(fc && *fc ? fc : "/var/tmp/filecoin-proof-parameters");
  }
  if (!c->listen || !c->keys_dir || !c->param_dir) return CZK_ERR_NOMEM;
  if (c->memory_budget == 0) {
    uint64_t phys = czk__config_physical_memory();
    uint64_t margin = phys / 10 + (2ull << 30);
    c->memory_budget = phys > margin + (1ull << 30) ? phys - margin : (phys > (1ull << 30) ? phys / 2 : (512ull << 20));
  }
  if (strncmp(c->listen, "unix:", 5) != 0 && !strchr(c->listen, ':')) {
    snprintf(err, errlen, "listen: '%s' is neither unix:PATH nor host:port", c->listen);
    return CZK_ERR_CONFIG;
  }
  if (c->http && *c->http && !strchr(c->http, ':')) {
    snprintf(err, errlen, "http: '%s' is not host:port", c->http);
    return CZK_ERR_CONFIG;
  }
  unsigned smode;
  long sgid;
  CZK_TRY(czk__config_socket_perms(c, &smode, &sgid, err, errlen));
  czk_log_level lv;
  if (!czk_log_parse_level(c->log_level, &lv)) {
    snprintf(err, errlen, "log_level: '%s' is not one of trace, debug, info, warn, error, off", c->log_level);
    return CZK_ERR_CONFIG;
  }
  if (strcmp(c->log_format, "text") != 0 && strcmp(c->log_format, "json") != 0) {
    snprintf(err, errlen, "log_format: '%s' is neither text nor json", c->log_format);
    return CZK_ERR_CONFIG;
  }
  if (c->synthesis_workers == 0) {
    snprintf(err, errlen, "synthesis_workers: must be at least 1");
    return CZK_ERR_CONFIG;
  }
  uint64_t key_mem;
  if (strcmp(c->gpu_key_memory, "auto") != 0 && !czk__parse_size(c->gpu_key_memory, &key_mem)) {
    snprintf(err, errlen, "gpu_key_memory: '%s' is neither auto nor a size (e.g. 96GiB, 0)", c->gpu_key_memory);
    return CZK_ERR_CONFIG;
  }
  uint64_t lim;
  if (czk__config_gpu_limit(c->gpu_memory_limit, 0, &lim, err, errlen) != CZK_OK) return CZK_ERR_CONFIG;
  uint32_t tiers, shapes;
  if (czk__config_plan_choice(c->gpu_key_tier, c->gpu_lane_shape, &tiers, &shapes, err, errlen) != CZK_OK)
    return CZK_ERR_CONFIG;
  if (c->gpu_workers_per_device == 0 || c->gpu_workers_per_device > 16) {
    snprintf(err, errlen, "gpu_workers_per_device: must be 1..16");
    return CZK_ERR_CONFIG;
  }
  if (c->max_message_size < 4096 || c->max_message_size > (uint64_t)INT32_MAX) {
    snprintf(err, errlen, "max_message_size: must be between 4KiB and 2GiB-1");
    return CZK_ERR_CONFIG;
  }
  if (c->memory_budget < (64ull << 20)) {
    snprintf(err, errlen, "memory_budget: %llu bytes is below the 64MiB minimum", (unsigned long long)c->memory_budget);
    return CZK_ERR_CONFIG;
  }
  const char *g = c->gpus;
  if (strcmp(g, "all") != 0 && strcmp(g, "none") != 0) {
    for (const char *p = g; *p; p++)
      if (!isdigit((unsigned char)*p) && *p != ',') {
        snprintf(err, errlen, "gpus: '%s' is not all, none or a comma list of ordinals", g);
        return CZK_ERR_CONFIG;
      }
  }
  for (const char *p = c->exclude_gpus; *p; p++)
    if (!isdigit((unsigned char)*p) && *p != ',') {
      snprintf(err, errlen, "exclude_gpus: '%s' is not a comma list of ordinals", c->exclude_gpus);
      return CZK_ERR_CONFIG;
    }
  return CZK_OK;
}

static void value_text(const czk__config *c, size_t i, char *buf, size_t n) {
  const cfg_entry *e = &k_table[i];
  const char *base = (const char *)c + e->off;
  switch (e->type) {
  case T_STR: snprintf(buf, n, "\"%s\"", *(char *const *)base ? *(char *const *)base : ""); break;
  case T_SIZE: {
    uint64_t v = *(const uint64_t *)base;
    if (v && v % (1ull << 30) == 0) snprintf(buf, n, "%lluGiB", (unsigned long long)(v >> 30));
    else if (v && v % (1ull << 20) == 0) snprintf(buf, n, "%lluMiB", (unsigned long long)(v >> 20));
    else snprintf(buf, n, "%llu", (unsigned long long)v);
    break;
  }
  case T_UINT: snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)base); break;
  case T_BOOL: snprintf(buf, n, "%s", *(const bool *)base ? "true" : "false"); break;
  case T_DUR: {
    uint64_t v = *(const uint64_t *)base;
    if (v % 1000 == 0) snprintf(buf, n, "%llus", (unsigned long long)(v / 1000));
    else snprintf(buf, n, "%llums", (unsigned long long)v);
    break;
  }
  }
}

void czk__config_dump(const czk__config *c, FILE *out) {
  fprintf(out, "# czk daemon configuration (czk daemon --dump-config)\n");
  for (size_t i = 0; i < c->nwarnings; i++) fprintf(out, "# warning: %s\n", c->warnings[i]);
  for (size_t i = 0; i < N_KEYS; i++) {
    char v[4200];
    value_text(c, i, v, sizeof v);
    fprintf(out, "\n# %s (%s)\n%s = %s\n", k_table[i].help, type_name(k_table[i].type), k_table[i].key, v);
  }
}

void czk__config_print_help(FILE *out) {
  fprintf(out, "options (each is also a config-file key, with '-' written as '_'):\n");
  fprintf(out, "  --config FILE                 read a config file first (flags override it)\n");
  fprintf(out, "  --dump-config                 print the effective configuration and exit\n");
  for (size_t i = 0; i < N_KEYS; i++) {
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", k_table[i].key);
    for (char *p = flag + 2; *p; p++)
      if (*p == '_') *p = '-';
    char arg[80];
    snprintf(arg, sizeof arg, "%s %s", flag, k_table[i].type == T_BOOL ? "[BOOL]" : "VALUE");
    fprintf(out, "  %-29s %s", arg, k_table[i].help);
    if (*k_table[i].def) fprintf(out, " [default: %s]", k_table[i].def);
    fputc('\n', out);
  }
}

void czk__config_print_markdown(FILE *out) {
  fprintf(out, "| key | flag | type | default | meaning |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < N_KEYS; i++) {
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", k_table[i].key);
    for (char *p = flag + 2; *p; p++)
      if (*p == '_') *p = '-';
    fprintf(out, "| `%s` | `%s` | %s | %s | %s |\n", k_table[i].key, flag, type_name(k_table[i].type),
            *k_table[i].def ? k_table[i].def : "(computed)", k_table[i].help);
  }
}

czk_status czk__config_plan_choice(const char *tier, const char *shape, uint32_t *tiers, uint32_t *shapes, char *err,
                                   size_t errlen) {
  static const char *const tn[] = {"auto", "resident", "partial", "streamed"};
  static const char *const sn[] = {"auto", "full", "compact", "lean"};
  *tiers = *shapes = 0;
  int t = -1, h = -1;
  for (int i = 0; i < 4; i++) {
    if (tier && strcmp(tier, tn[i]) == 0) t = i;
    if (shape && strcmp(shape, sn[i]) == 0) h = i;
  }
  if (t < 0) {
    snprintf(err, errlen, "gpu_key_tier: '%s' is not one of auto, resident, partial, streamed", tier ? tier : "");
    return CZK_ERR_CONFIG;
  }
  if (h < 0) {
    snprintf(err, errlen, "gpu_lane_shape: '%s' is not one of auto, full, compact, lean", shape ? shape : "");
    return CZK_ERR_CONFIG;
  }
  /* tiers: resident, partial, streamed = bits 0, 1, 2 (CZK_TIER_BIT_*); shapes: 1 << czk_engine_lane_shape, whose
   * order (full, compact, lean) is sn's after auto */
  _Static_assert(CZK_TIER_BIT_RESIDENT == 1u && CZK_TIER_BIT_PARTIAL == 2u && CZK_TIER_BIT_STREAMED == 4u, "tier bits");
  _Static_assert(CZK_LANE_FULL == 0 && CZK_LANE_COMPACT == 1 && CZK_LANE_LEAN == 2, "shape order");
  if (t == 2 && h == 1) { /* a partial copy proves in compact or lean lanes */
    snprintf(err, errlen, "gpu_key_tier partial with gpu_lane_shape full: a partial copy proves in compact or lean "
                          "lanes only");
    return CZK_ERR_CONFIG;
  }
  *tiers = t ? 1u << (t - 1) : 0;
  *shapes = h ? 1u << (h - 1) : 0;
  return CZK_OK;
}

czk_status czk__config_gpu_limit(const char *spec, int ordinal, uint64_t *out, char *err, size_t errlen) {
  *out = 0;
  if (!spec || !*spec) return CZK_OK;
  if (!strchr(spec, ':')) {
    if (!czk__parse_size(spec, out)) {
      snprintf(err, errlen, "gpu_memory_limit: '%s' is not a size (e.g. 16GiB) or ORDINAL:SIZE entries", spec);
      return CZK_ERR_CONFIG;
    }
    return CZK_OK;
  }
  const char *p = spec;
  while (*p) {
    char *end;
    errno = 0;
    long ord = strtol(p, &end, 10);
    if (end == p || *end != ':' || ord < 0 || ord > 1023 || errno) {
      snprintf(err, errlen, "gpu_memory_limit: '%s': expected ORDINAL:SIZE entries separated by commas", spec);
      return CZK_ERR_CONFIG;
    }
    const char *v = end + 1, *comma = strchr(v, ',');
    size_t len = comma ? (size_t)(comma - v) : strlen(v);
    char buf[64];
    uint64_t b;
    if (len == 0 || len >= sizeof buf) {
      snprintf(err, errlen, "gpu_memory_limit: '%s': a size is missing or too long", spec);
      return CZK_ERR_CONFIG;
    }
    memcpy(buf, v, len);
    buf[len] = 0;
    if (!czk__parse_size(buf, &b)) {
      snprintf(err, errlen, "gpu_memory_limit: '%s' is not a size", buf);
      return CZK_ERR_CONFIG;
    }
    if (ord == ordinal) *out = b;
    p = comma ? comma + 1 : v + len;
  }
  return CZK_OK;
}
