/* config_toml.c: the reference daemon's (cuzk) TOML configuration, read by the vendored tomlc99 parser
 * (third_party/tomlc99, MIT) and mapped key by key onto czk's one configuration table (config.h).
 *
 * Every key of the reference's sections [daemon] [memory] [gpus] [scheduler] [synthesis] [pipeline] [srs] [logging]
 * has one row in k_map below: either the czk key it sets (its value converted to text and parsed by czk__config_set,
 * so "5GiB", "5m" and plain integers mean what they mean in czk's own file), a special rule, or the reason czk ignores
 * it. An ignored or unknown key adds exactly one warning (czk__config.warnings), which the daemon logs at start and
 * --dump-config prints. A [czk] section may set any of czk's own keys by name, so one file can serve both.
 * Defaults that differ: a TOML file implies the reference's listen address and parameter directory unless it names
 * them (an operator's Curio connects there); czk's own defaults apply to everything else. */
#include "api/config.h"

#include "core/units.h"
#include "tomlc99/toml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REF_LISTEN "unix:///run/curio/cuzk.sock"
#define REF_PARAM_CACHE "/data/zk/params"

typedef enum {
  M_SET,     /* sets czk_key to the value */
  M_IGNORE,  /* warns with why */
  M_SPECIAL, /* handled by name in map_special */
} map_kind;

typedef struct {
  const char *section, *key;
  map_kind kind;
  const char *czk_key; /* M_SET */
  const char *why;     /* M_IGNORE: why czk does not use it */
} map_row;

static const map_row k_map[] = {
    {"daemon", "listen", M_SET, "listen", NULL},
    {"daemon", "status_listen", M_SET, "http", NULL},
    {"memory", "total_budget", M_SPECIAL, "memory_budget", NULL},
    {"memory", "safety_margin", M_SPECIAL, "memory_budget", NULL},
    {"memory", "eviction_min_idle", M_IGNORE, NULL,
     "czk keeps keys resident until the memory budget needs their room, then evicts the least recently used unused one"},
    {"memory", "pinned_budget", M_IGNORE, NULL, "deprecated in cuzk too: memory_budget covers keys and proofs"},
    {"memory", "working_memory_budget", M_IGNORE, NULL, "deprecated in cuzk too: memory_budget covers keys and proofs"},
    {"gpus", "devices", M_SPECIAL, "gpus", NULL},
    {"gpus", "gpu_threads", M_IGNORE, NULL, "the CPU side of GPU proving runs on czk's shared pool (threads)"},
    {"gpus", "gpu_workers_per_device", M_SET, "gpu_workers_per_device", NULL},
    {"scheduler", "max_batch_size", M_IGNORE, NULL, "czk proves one partition per GPU call and does not batch sectors"},
    {"scheduler", "max_batch_wait_ms", M_IGNORE, NULL, "czk does not batch, so never waits for a batch to fill"},
    {"scheduler", "sort_by_type", M_IGNORE, NULL, "czk dispatches by (priority, arrival, partition) only"},
    {"synthesis", "threads", M_SET, "threads", NULL},
    {"synthesis", "partition_workers", M_IGNORE, NULL, "deprecated in cuzk too: the memory budget bounds concurrency"},
    {"pipeline", "enabled", M_SPECIAL, NULL, NULL},
    {"pipeline", "synthesis_lookahead", M_IGNORE, NULL, "the memory budget bounds how much is synthesized ahead"},
    {"pipeline", "synthesis_concurrency", M_SET, "synthesis_workers", NULL},
    {"pipeline", "slot_size", M_IGNORE, NULL,
     "czk schedules partitions one by one; the memory budget bounds how many are in flight"},
    {"pipeline", "max_gpu_queue_depth", M_IGNORE, NULL, "the memory budget bounds the GPU queue"},
    {"srs", "param_cache", M_SET, "param_dir", NULL},
    {"srs", "preload", M_IGNORE, NULL, "deprecated in cuzk too: keys load on demand (or by PreloadSRS)"},
    {"logging", "level", M_SET, "log_level", NULL},
    {"logging", "format", M_SPECIAL, "log_format", NULL},
};
#define N_MAP (sizeof k_map / sizeof k_map[0])

void czk__config_warn(czk__config *c, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* a warning may quote the file's text: its control characters (a TOML string may hold "\n") become '?', so that
   * a warning is one line in the log and in --dump-config's comments (fuzz_config: a newline in an ignored value
   * ended the comment, and the dump did not load back) */
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
  char **w = realloc(c->warnings, (c->nwarnings + 1) * sizeof *w);
  if (!w) return;
  c->warnings = w;
  char *s = strdup(buf);
  if (s) c->warnings[c->nwarnings++] = s;
}

/* The value of key in tab as text: strings as they are, integers in decimal, booleans true/false, floats %g.
 * Returns false for arrays, tables and timestamps. */
static bool value_text(const toml_table_t *tab, const char *key, char *buf, size_t n) {
  toml_datum_t d = toml_string_in(tab, key);
  if (d.ok) {
    snprintf(buf, n, "%s", d.u.s);
    free(d.u.s);
    return true;
  }
  d = toml_int_in(tab, key);
  if (d.ok) {
    snprintf(buf, n, "%lld", (long long)d.u.i);
    return true;
  }
  d = toml_bool_in(tab, key);
  if (d.ok) {
    snprintf(buf, n, "%s", d.u.b ? "true" : "false");
    return true;
  }
  d = toml_double_in(tab, key);
  if (d.ok) {
    snprintf(buf, n, "%g", d.u.d);
    return true;
  }
  return false;
}

static long find_row(const char *section, const char *key) {
  for (size_t i = 0; i < N_MAP; i++)
    if (!strcmp(k_map[i].section, section) && !strcmp(k_map[i].key, key)) return (long)i;
  return -1;
}

static bool known_section(const char *s) {
  for (size_t i = 0; i < N_MAP; i++)
    if (!strcmp(k_map[i].section, s)) return true;
  return false;
}

static czk_status set_key(czk__config *c, const char *path, const char *section, const char *key,
                          const char *czk_key, const char *val, char *err, size_t errlen) {
  char kerr[512];
  czk_status st = czk__config_set(c, czk_key, val, kerr, sizeof kerr);
  if (st != CZK_OK) snprintf(err, errlen, "%s: [%s] %s: %s", path, section, key, kerr);
  return st;
}

/* [gpus] devices = [0, 2] -> gpus = "0,2"; [] -> "all" */
static czk_status map_devices(czk__config *c, const char *path, const toml_table_t *t, char *err, size_t errlen) {
  toml_array_t *a = toml_array_in(t, "devices");
  if (!a) {
    snprintf(err, errlen, "%s: [gpus] devices: expected an array of GPU ordinals, e.g. [0, 1]", path);
    return CZK_ERR_CONFIG;
  }
  char list[256] = "";
  size_t len = 0;
  int n = toml_array_nelem(a);
  for (int i = 0; i < n; i++) {
    toml_datum_t d = toml_int_at(a, i);
    if (!d.ok || d.u.i < 0 || d.u.i > 1023) {
      snprintf(err, errlen, "%s: [gpus] devices: element %d is not a GPU ordinal (0..1023)", path, i);
      return CZK_ERR_CONFIG;
    }
    int w = snprintf(list + len, sizeof list - len, "%s%lld", i ? "," : "", (long long)d.u.i);
    if (w < 0 || (size_t)w >= sizeof list - len) {
      snprintf(err, errlen, "%s: [gpus] devices: too many ordinals", path);
      return CZK_ERR_CONFIG;
    }
    len += (size_t)w;
  }
  return set_key(c, path, "gpus", "devices", "gpus", n ? list : "all", err, errlen);
}

/* [memory] total_budget ("auto" or a size) and safety_margin: an explicit size sets memory_budget; "auto" with a
 * safety_margin given is physical memory minus that margin (as in cuzk); "auto" alone keeps czk's computed default. */
static czk_status map_memory(czk__config *c, const char *path, const toml_table_t *t, char *err, size_t errlen) {
  char total[128] = "auto", margin[128] = "";
  if (toml_key_exists(t, "total_budget") && !value_text(t, "total_budget", total, sizeof total)) {
    snprintf(err, errlen, "%s: [memory] total_budget: expected \"auto\" or a size such as \"256GiB\"", path);
    return CZK_ERR_CONFIG;
  }
  if (toml_key_exists(t, "safety_margin") && !value_text(t, "safety_margin", margin, sizeof margin)) {
    snprintf(err, errlen, "%s: [memory] safety_margin: expected a size such as \"5GiB\"", path);
    return CZK_ERR_CONFIG;
  }
  uint64_t m = 0;
  if (*margin && !czk__parse_size(margin, &m)) {
    snprintf(err, errlen, "%s: [memory] safety_margin: '%s' is not a size (e.g. 5GiB)", path, margin);
    return CZK_ERR_CONFIG;
  }
  if (strcmp(total, "auto") != 0) {
    if (*margin) czk__config_warn(c, "[memory] safety_margin: ignored: total_budget is explicit (as in cuzk)");
    return set_key(c, path, "memory", "total_budget", "memory_budget", total, err, errlen);
  }
  if (!*margin) return CZK_OK; /* czk's own default: physical memory minus 10% and 2 GiB */
  uint64_t phys = czk__config_physical_memory();
  if (phys <= m) {
    snprintf(err, errlen, "%s: [memory] safety_margin: %s is not below physical memory (%llu bytes)", path, margin,
             (unsigned long long)phys);
    return CZK_ERR_CONFIG;
  }
  char v[32];
  snprintf(v, sizeof v, "%llu", (unsigned long long)(phys - m));
  return set_key(c, path, "memory", "total_budget", "memory_budget", v, err, errlen);
}

static czk_status map_table(czk__config *c, const char *path, const char *section, const toml_table_t *t, char *err,
                            size_t errlen) {
  bool memory_done = false;
  for (int k = 0;; k++) {
    const char *key = toml_key_in(t, k);
    if (!key) break;
    long r = find_row(section, key);
    if (r < 0) {
      czk__config_warn(c, "[%s] %s: ignored: not a key of cuzk's configuration", section, key);
      continue;
    }
    const map_row *m = &k_map[r];
    char val[4096];
    switch (m->kind) {
    case M_IGNORE: czk__config_warn(c, "[%s] %s: ignored: %s", section, key, m->why); break;
    case M_SET:
      if (!value_text(t, key, val, sizeof val)) {
        snprintf(err, errlen, "%s: [%s] %s: expected a string, number or boolean", path, section, key);
        return CZK_ERR_CONFIG;
      }
      CZK_TRY(set_key(c, path, section, key, m->czk_key, val, err, errlen));
      break;
    case M_SPECIAL:
      if (!strcmp(key, "devices")) {
        CZK_TRY(map_devices(c, path, t, err, errlen));
      } else if (!strcmp(section, "memory")) {
        if (!memory_done) CZK_TRY(map_memory(c, path, t, err, errlen));
        memory_done = true;
      } else if (!strcmp(key, "format")) {
        /* tracing's formats: json is json; full, compact and pretty are text lines here */
        if (!value_text(t, key, val, sizeof val)) {
          snprintf(err, errlen, "%s: [logging] format: expected a string", path);
          return CZK_ERR_CONFIG;
        }
        bool json = !strcmp(val, "json");
        if (!json && strcmp(val, "text") != 0)
          czk__config_warn(c, "[logging] format = \"%s\": ignored: czk writes text or json lines", val);
        CZK_TRY(set_key(c, path, section, key, "log_format", json ? "json" : "text", err, errlen));
      } else if (!strcmp(key, "enabled")) {
        toml_datum_t d = toml_bool_in(t, key);
        if (!d.ok) {
          snprintf(err, errlen, "%s: [pipeline] enabled: expected true or false", path);
          return CZK_ERR_CONFIG;
        }
        if (!d.u.b) czk__config_warn(c, "[pipeline] enabled = false: ignored: czk always pipelines synthesis and proving");
      }
      break;
    }
  }
  return CZK_OK;
}

/* [czk]: czk's own keys by name */
static czk_status map_own(czk__config *c, const char *path, const toml_table_t *t, char *err, size_t errlen) {
  for (int k = 0;; k++) {
    const char *key = toml_key_in(t, k);
    if (!key) break;
    char val[4096];
    toml_datum_t d = toml_int_in(t, key);
    if (!strcmp(key, "socket_mode") && d.ok) { /* TOML writes octal as 0o660 and has no leading-zero octal */
      snprintf(val, sizeof val, "0%llo", (unsigned long long)d.u.i);
    } else if (!value_text(t, key, val, sizeof val)) {
      snprintf(err, errlen, "%s: [czk] %s: expected a string, number or boolean", path, key);
      return CZK_ERR_CONFIG;
    }
    CZK_TRY(set_key(c, path, "czk", key, key, val, err, errlen));
  }
  return CZK_OK;
}

czk_status czk__config_load_toml(czk__config *c, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return CZK_ERR_IO;
  }
  czk_status st = czk__config_load_toml_stream(c, path, f, err, errlen);
  fclose(f);
  return st;
}

/* tomlc99 parses nested arrays and inline tables by recursion without a bound: a file of a few thousand '[' overflowed
 * the stack (fuzz_config, docs/reliability.md finding 4). The text is scanned first (strings and comments skipped)
 * and nesting deeper than CZK__TOML_MAX_DEPTH is refused; cuzk's own files nest at most 2 deep. Returns the line of
 * the first bracket past the limit, 0 when the text is within it. */
#define CZK__TOML_MAX_DEPTH 32
#define CZK__TOML_MAX_BYTES ((size_t)1 << 20)
static size_t toml_too_deep(const char *s, size_t n) {
  size_t depth = 0, line = 1;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (ch == '\n') line++;
    else if (ch == '#') {
      while (i + 1 < n && s[i + 1] != '\n') i++;
    } else if (ch == '"' || ch == '\'') {
      bool multi = i + 2 < n && s[i + 1] == ch && s[i + 2] == ch, basic = ch == '"';
      i += multi ? 3 : 1;
      for (; i < n; i++) {
        if (s[i] == '\n') {
          line++;
          if (!multi) break; /* an unterminated one-line string: the parser says so */
        } else if (basic && s[i] == '\\') {
          if (i + 1 < n && s[i + 1] == '\n') line++;
          i++;
        } else if (s[i] == ch && (!multi || (i + 2 < n && s[i + 1] == ch && s[i + 2] == ch))) {
          if (multi) i += 2;
          break;
        }
      }
    } else if (ch == '[' || ch == '{') {
      if (++depth > CZK__TOML_MAX_DEPTH) return line;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      depth--;
    }
  }
  return 0;
}

czk_status czk__config_load_toml_stream(czk__config *c, const char *path, FILE *f, char *err, size_t errlen) {
  char perr[256];
  /* the whole text (bounded), scanned for nesting, then parsed */
  size_t cap = 4096, len = 0;
  bool too_big = false;
  char *text = malloc(cap);
  while (text) {
    if (len + 1 == cap) {
      if (cap > CZK__TOML_MAX_BYTES) {
        too_big = true;
        break;
      }
      char *t = realloc(text, cap * 2);
      if (!t) free(text);
      text = t, cap *= 2;
      if (!text) break;
    }
    size_t got = fread(text + len, 1, cap - 1 - len, f);
    len += got;
    if (!got) break;
  }
  too_big |= len > CZK__TOML_MAX_BYTES;
  if (!text) {
    snprintf(err, errlen, "%s: out of memory reading it", path);
    return CZK_ERR_NOMEM;
  }
  if (ferror(f) || too_big) {
    snprintf(err, errlen, too_big ? "%s: larger than 1 MiB: not a configuration file" : "%s: cannot read it", path);
    free(text);
    return too_big ? CZK_ERR_CONFIG : CZK_ERR_IO;
  }
  text[len] = 0;
  size_t deep = memchr(text, 0, len) ? 0 : toml_too_deep(text, len);
  if (deep) {
    snprintf(err, errlen, "%s:%zu: not valid TOML: arrays or inline tables nested more than %d deep", path, deep,
             CZK__TOML_MAX_DEPTH);
    free(text);
    return CZK_ERR_CONFIG;
  }
  toml_table_t *root = memchr(text, 0, len) ? NULL : toml_parse(text, perr, sizeof perr);
  if (memchr(text, 0, len)) snprintf(perr, sizeof perr, "a NUL byte in the text");
  free(text);
  if (!root) {
    snprintf(err, errlen, "%s: not valid TOML: %s", path, perr);
    return CZK_ERR_CONFIG;
  }
  czk_status st = CZK_OK;
  bool has_listen = false, has_params = false;
  for (int k = 0; st == CZK_OK; k++) {
    const char *key = toml_key_in(root, k);
    if (!key) break;
    toml_table_t *t = toml_table_in(root, key);
    if (!t) {
      czk__config_warn(c, "%s: ignored: a top-level key; cuzk's keys live in sections such as [daemon]", key);
      continue;
    }
    if (!strcmp(key, "czk")) {
      st = map_own(c, path, t, err, errlen);
      has_listen |= toml_key_exists(t, "listen") != 0;
      has_params |= toml_key_exists(t, "param_dir") != 0;
    } else if (known_section(key)) {
      st = map_table(c, path, key, t, err, errlen);
      if (!strcmp(key, "daemon")) has_listen |= toml_key_exists(t, "listen") != 0;
      if (!strcmp(key, "srs")) has_params |= toml_key_exists(t, "param_cache") != 0;
    } else {
      czk__config_warn(c, "[%s]: ignored: not a section of cuzk's configuration", key);
    }
  }
  /* the reference's defaults where the file is silent, unless czk's own setting came first */
  long li = czk__config_key_index("listen"), pi = czk__config_key_index("param_dir");
  if (st == CZK_OK && !has_listen && li >= 0 && !c->set_by_user[li])
    st = set_key(c, path, "daemon", "listen", "listen", REF_LISTEN, err, errlen);
  if (st == CZK_OK && !has_params && pi >= 0 && !c->set_by_user[pi])
    st = set_key(c, path, "srs", "param_cache", "param_dir", REF_PARAM_CACHE, err, errlen);
  toml_free(root);
  return st;
}

bool czk__config_is_toml_stream(const char *name, FILE *f) {
  size_t n = strlen(name);
  if (n >= 5 && !strcmp(name + n - 5, ".toml")) return true;
  long at = ftell(f);
  char line[512];
  bool toml = false;
  while (fgets(line, sizeof line, f)) {
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || !*s) continue;
    toml = *s == '['; /* the first meaningful line is a section header: czk's flat file has none */
    break;
  }
  if (at >= 0) (void)fseek(f, at, SEEK_SET);
  clearerr(f);
  return toml;
}

bool czk__config_is_toml(const char *path) {
  size_t n = strlen(path);
  if (n >= 5 && !strcmp(path + n - 5, ".toml")) return true;
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool toml = czk__config_is_toml_stream(path, f);
  fclose(f);
  return toml;
}
