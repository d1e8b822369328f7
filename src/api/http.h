/* http.h: the daemon's HTTP endpoints on libmicrohttpd: GET /metrics (Prometheus text), GET /status (JSON engine
 * snapshot), GET /healthz ("ok" while serving; 503 "draining" once shutdown began). Anything else: 404; other
 * methods: 405. One internal polling thread; handlers only snapshot the engine (no engine lock held while rendering). */
#ifndef CZK_API_HTTP_H
#define CZK_API_HTTP_H

#include "api/service.h"

typedef struct czk__http czk__http;

/* addr: "host:port" (IPv4 address or "localhost"; port 0 picks a free port). */
czk_status czk__http_start(czk__http **out, const char *addr, czk__service *svc);
/* The port actually bound. */
unsigned czk__http_port(const czk__http *h);
void czk__http_set_draining(czk__http *h);
void czk__http_stop(czk__http *h);

#endif
