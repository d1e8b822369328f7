/* http.c: /metrics, /status (JSON), /status.html (and /: the same as a page), /healthz on libmicrohttpd (see http.h).
 * Invariants: /metrics and /status take one engine status snapshot per request and render it with no lock held; a
 * rendered body is a heap buffer handed to libmicrohttpd (freed by it, or here when the response cannot be created),
 * fixed texts are static; `draining` is an atomic set by czk__http_set_draining, after which /healthz answers 503. */
#include "api/http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "czk/log.h"

struct czk__http {
  struct MHD_Daemon *d;
  czk__service *svc;
  unsigned port;
  atomic_int draining;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body, size_t len,
                             bool owned) {
  if (czk_fault("http.write")) { /* fault site (tests): the response cannot be written; the connection is dropped */
    if (owned) free(body);
    return MHD_NO;
  }
  struct MHD_Response *r =
      MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!r) {
    if (owned) free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  enum MHD_Result ret = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **state) {
  (void)version;
  (void)upload_data;
  czk__http *h = cls;
  if (*state == NULL) { /* first call for this request: headers only */
    *state = (void *)1;
    return MHD_YES;
  }
  if (*upload_size) { /* ignore bodies */
    *upload_size = 0;
    return MHD_YES;
  }
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return reply(c, 405, "text/plain", "method not allowed\n", 19, false);
  if (strcmp(url, "/healthz") == 0) {
    if (atomic_load(&h->draining)) return reply(c, 503, "text/plain", "draining\n", 9, false);
    return reply(c, 200, "text/plain", "ok\n", 3, false);
  }
  bool metrics = strcmp(url, "/metrics") == 0, status = strcmp(url, "/status") == 0;
  bool html = strcmp(url, "/status.html") == 0 || strcmp(url, "/") == 0;
  if (!metrics && !status && !html) return reply(c, 404, "text/plain", "not found\n", 10, false);
  czk_engine_status *st;
  if (czk_engine_status_get(h->svc->engine, &st) != CZK_OK)
    return reply(c, 500, "text/plain", "status unavailable\n", 19, false);
  czk__strbuf sb;
  czk__sb_init(&sb);
  if (metrics) czk__render_metrics(&sb, st, &h->svc->metrics, &h->svc->info);
  else if (html) czk__render_status_html(&sb, st, &h->svc->info);
  else czk__render_status_json(&sb, st, &h->svc->info);
  czk_engine_status_free(st);
  size_t len;
  char *body = czk__sb_take(&sb, &len);
  if (!body) return reply(c, 500, "text/plain", "out of memory\n", 14, false);
  return reply(c, 200,
               metrics ? "text/plain; version=0.0.4; charset=utf-8"
               : html  ? "text/html; charset=utf-8"
                       : "application/json",
               body, len, true);
}

czk_status czk__http_start(czk__http **out, const char *addr, czk__service *svc) {
  *out = NULL;
  const char *colon = strrchr(addr, ':');
  if (!colon) return CZK_ERR_CONFIG;
  char host[128];
  size_t hl = (size_t)(colon - addr);
  if (hl >= sizeof host) return CZK_ERR_CONFIG;
  memcpy(host, addr, hl);
  host[hl] = 0;
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end || port < 0 || port > 65535) return CZK_ERR_CONFIG;
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  if (hl == 0 || strcmp(host, "localhost") == 0) strcpy(host, "127.0.0.1");
  if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) return CZK_ERR_CONFIG;
  czk__http *h = calloc(1, sizeof *h);
  if (!h) return CZK_ERR_NOMEM;
  h->svc = svc;
  /* Idle connections must not lock out a liveness probe (issue 22 #11: 70 idle connections made /healthz refuse for
   * 30 s at a limit of 64): epoll (no FD_SETSIZE cap), room for 512 connections, and an idle connection closed after
   * 5 s (a request in progress is not idle). */
  h->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
                          MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT, 512u,
                          MHD_OPTION_CONNECTION_TIMEOUT, 5u, MHD_OPTION_END);
  if (!h->d) {
    CZK_ERROR("http", "cannot listen on %s", addr);
    free(h);
    return CZK_ERR_IO;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : (unsigned)port;
  *out = h;
  return CZK_OK;
}

unsigned czk__http_port(const czk__http *h) { return h->port; }
void czk__http_set_draining(czk__http *h) {
  if (h) atomic_store(&h->draining, 1);
}
void czk__http_stop(czk__http *h) {
  if (!h) return;
  MHD_stop_daemon(h->d);
  free(h);
}
