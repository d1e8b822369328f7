/* cmd_trace.c: `czk trace`: fetch the daemon's timeline (Chrome trace JSON, via czk.v1.Admin/GetTrace) or read a
 * trace file, and render it as a self-contained HTML page (timeline.html, embedded in the binary; no network access
 * needed): the devices on top with busy % and the causes of their idle time, key loads, queue depths and memory as
 * step graphs, the engine's workers, the jobs (collapsible, a lane per partition), a legend, a time axis, zoom and
 * pan, and a summary table of the whole trace. chrome://tracing or Perfetto open the .json as well. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/atomicfile.h"
#include "cli/cli.h"
#include "api/client.h"
#include "core/mapfile.h"

/* The page (src/cli/timeline.html, embedded at build time by tools/embed.cmake): the trace goes where the marker is. */
extern const char czk__timeline_page[];
extern const size_t czk__timeline_page_len;
static const char k_marker[] = "/*CZK_TRACE_JSON*/";

/* Write the HTML page embedding json. The JSON sits in a <script type="application/json"> element, where "</script"
 * or "<!--" would end or confuse it: every '<' is written as the JSON escape \u003c (JSON text has '<' only inside
 * strings, where the escape means the same character). */
int czk__trace_write_html(const char *path, const char *json) {
  const char *mark = strstr(czk__timeline_page, k_marker);
  if (!mark) return -1; /* the build embedded a page without the marker */
  czk__afile af; /* temp + fsync + rename */
  if (czk__afile_open(&af, path, "w") != CZK_OK) return -1;
  FILE *f = af.f;
  fwrite(czk__timeline_page, 1, (size_t)(mark - czk__timeline_page), f);
  for (const char *p = json; *p; p++) {
    if (*p == '<') fputs("\\u003c", f);
    else fputc(*p, f);
  }
  fputs(mark + sizeof k_marker - 1, f);
  return czk__afile_commit(&af) == CZK_OK ? 0 : -1;
}

/* A trace file must be JSON holding the events: an array, or an object with a "traceEvents" array (Chrome's two
 * forms). Returns NULL when it is, else what is wrong (a static string or json-c's message). */
static const char *trace_json_problem(const char *text, size_t len) {
  json_tokener *tok = json_tokener_new_ex(64);
  if (!tok) return "out of memory";
  json_object *o = json_tokener_parse_ex(tok, text, (int)(len > INT32_MAX ? INT32_MAX : len));
  enum json_tokener_error err = json_tokener_get_error(tok);
  const char *why = NULL;
  if (len > INT32_MAX) why = "larger than 2 GiB";
  else if (!o || err != json_tokener_success)
    why = err == json_tokener_continue || err == json_tokener_success ? "the JSON text ends early (truncated?)"
                                                                      : json_tokener_error_desc(err);
  else if ((size_t)json_tokener_get_parse_end(tok) < len && strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
           len - json_tokener_get_parse_end(tok))
    why = "text after the JSON value";
  else if (!json_object_is_type(o, json_type_array)) {
    json_object *ev;
    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "traceEvents", &ev) ||
        !json_object_is_type(ev, json_type_array))
      why = "not a Chrome trace (no \"traceEvents\" array)";
  }
  json_object_put(o);
  json_tokener_free(tok);
  return why;
}

int czk_cmd_trace(int argc, char **argv) {
  const char *addr = czk__client_default_addr(), *in = NULL, *out_json = NULL, *out_html = "czk-timeline.html";
  static const struct option lo[] = {{"addr", 1, 0, 'a'}, {"from", 1, 0, 'f'}, {"json", 1, 0, 'j'},
                                     {"html", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': addr = optarg; break;
    case 'f': in = optarg; break;
    case 'j': out_json = optarg; break;
    case 'o': out_html = optarg; break;
    case 'h':
      printf("usage: czk trace [--addr ADDR | --from TRACE.json] [--json OUT.json] [--html OUT.html]\n"
             "Fetches the running daemon's timeline (or reads a Chrome trace file) and writes a self-contained HTML\n"
             "timeline (default czk-timeline.html): the devices with busy %% and idle causes, key loads, queue depths\n"
             "and memory, the workers, the jobs (foldable), a summary; zoom and pan in the browser. --json keeps the\n"
             "Chrome trace (Perfetto opens it); --from renders a saved one.\n");
      return 0;
    default: return 2;
    }
  }
  if (optind != argc) {
    fprintf(stderr, "czk trace: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  char *json = NULL;
  if (in) {
    uint8_t *data;
    size_t len;
    czk_status st = czk__read_file(in, 1u << 30, &data, &len);
    if (st != CZK_OK) {
      fprintf(stderr, "czk trace: cannot read %s: %s\n", in, czk_status_str(st));
      return 1;
    }
    json = (char *)data; /* NUL-terminated by czk__read_file */
    const char *why = trace_json_problem(json, len);
    if (why) {
      fprintf(stderr, "czk trace: %s is not a trace: %s\n", in, why);
      free(json);
      return 1;
    }
  } else {
    Cuzk__V1__GetTraceRequest r = CUZK__V1__GET_TRACE_REQUEST__INIT;
    ProtobufCMessage *o;
    if (czk__client_call(addr, "/cuzk.v1.Admin/GetTrace", &r.base, &cuzk__v1__get_trace_response__descriptor, &o, 60000,
                         false, NULL, 0))
      return 1;
    json = strdup(((Cuzk__V1__GetTraceResponse *)o)->chrome_trace_json);
    protobuf_c_message_free_unpacked(o, NULL);
    if (!json) return 1;
  }
  int rc = 0;
  if (out_json) {
    if (czk__write_file_atomic(out_json, json, strlen(json)) != CZK_OK) {
      fprintf(stderr, "czk trace: cannot write %s\n", out_json);
      rc = 1;
    }
  }
  if (czk__trace_write_html(out_html, json) != 0) {
    fprintf(stderr, "czk trace: cannot write %s\n", out_html);
    rc = 1;
  } else {
    printf("timeline written to %s\n", out_html);
  }
  free(json);
  return rc;
}
