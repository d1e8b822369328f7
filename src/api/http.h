/* http.h: the daemon's HTTP endpoints on libmicrohttpd: GET /metrics (Prometheus text), GET /status (JSON engine
 * snapshot), GET /healthz ("ok" while serving; 503 "draining" once shutdown began). Anything else: 404; other
 * methods: 405. One internal polling thread; handlers only snapshot the engine (no engine lock held while rendering). */
#ifndef CZK_API_HTTP_H
#define CZK_API_HTTP_H

#include "api/service.h"

typedef struct czk_http czk_http;

/* addr: "host:port" (IPv4 address or "localhost"; port 0 picks a free port). */
czk_status czk_http_start(czk_http **out, const char *addr, czk_service *svc);
/* The port actually bound. */
unsigned czk_http_port(const czk_http *h);
void czk_http_set_draining(czk_http *h);
void czk_http_stop(czk_http *h);

#endif
