/* rpc.h: a small unary gRPC transport on gRPC's C core (libgrpc): a server that hands each call's request bytes to
 * one handler function on its own thread, and a blocking client call. Messages are opaque bytes here; the service layer
 * (service.c) encodes/decodes protobuf with protobuf-c.
 *
 * Threads: one accept thread per server drives the server completion queue; every accepted call runs on a thread of its
 * own with a private completion queue (so a handler may block, e.g. AwaitProof, without stalling other calls). The
 * number of concurrent calls is bounded (max_calls); beyond it new calls wait in gRPC's queue. Shutdown cancels
 * in-flight calls, then joins the accept thread and every call thread. */
#ifndef CZK_API_RPC_H
#define CZK_API_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "czk/status.h"

/* gRPC status codes used by czk (numeric values are the gRPC wire values). */
enum {
  CZK_GRPC_OK = 0,
  CZK_GRPC_CANCELLED = 1,
  CZK_GRPC_UNKNOWN = 2,
  CZK_GRPC_INVALID_ARGUMENT = 3,
  CZK_GRPC_DEADLINE_EXCEEDED = 4,
  CZK_GRPC_NOT_FOUND = 5,
  CZK_GRPC_ALREADY_EXISTS = 6,
  CZK_GRPC_RESOURCE_EXHAUSTED = 8,
  CZK_GRPC_FAILED_PRECONDITION = 9,
  CZK_GRPC_UNIMPLEMENTED = 12,
  CZK_GRPC_INTERNAL = 13,
  CZK_GRPC_UNAVAILABLE = 14,
};

/* A handler answers one call: method is the full path ("/cuzk.v1.ProvingEngine/Prove"). On success it returns
 * CZK_GRPC_OK and sets *resp (malloc'd, may be NULL for an empty message) and *resp_len; on failure it returns a gRPC
 * code and may set *err (malloc'd text). The transport frees *resp and *err. */
typedef int (*czk__rpc_handler)(void *user, const char *method, const uint8_t *req, size_t req_len, uint8_t **resp,
                               size_t *resp_len, char **err);

typedef struct czk__rpc_server czk__rpc_server;

/* listen: "unix:" followed by an absolute socket path (a unix socket, mode 0600) or "host:port" (TCP; also written
 * "http://host:port", the reference bench's form). Missing directories above the socket are created (0755); a live
 * daemon's socket is never taken over (CZK_ERR_EXISTS), a stale one is replaced.
 * max_message_bytes bounds both directions. */
czk_status czk__rpc_server_start(czk__rpc_server **out, const char *listen, size_t max_message_bytes,
                                unsigned max_calls, czk__rpc_handler handler, void *user);
/* The unix socket's permissions: mode (at most 0777) and group (gid, or -1 to keep the daemon's). The socket is
 * created owner-only, then given the group, then the mode, so it is never more open than configured. */
typedef struct {
  unsigned mode;
  long gid;
} czk__rpc_socket_opts;
czk_status czk__rpc_server_start_ex(czk__rpc_server **out, const char *listen, const czk__rpc_socket_opts *sock,
                                   size_t max_message_bytes, unsigned max_calls, czk__rpc_handler handler,
                                   void *user);
/* "http://host:port[/]" -> "host:port" (in buf); any other address is returned as it is. */
const char *czk__rpc_address(const char *addr, char *buf, size_t n);
/* From inside a handler: true when the call's client has gone away (cancelled, its deadline passed, the connection
 * dropped). A handler that blocks (AwaitProof) polls it and returns, so that a departed caller does not keep one of
 * the max_calls slots until its job ends. Does not wait; false outside a handler. */
bool czk__rpc_client_gone(void);
/* From inside a handler: frees the transport's copy of the request now (the handler must not read req after this),
 * so that a handler that blocks after decoding (Prove waiting for its job) does not hold the message until it
 * returns. The transport frees it after the handler otherwise. No-op outside a handler or when already released. */
void czk__rpc_release_request(void);
/* Bytes of request copies that handlers hold now (all calls): tests check a release with it. */
size_t czk__rpc_request_bytes_held(void);

/* Calls the server is serving now (a call counts until its thread has sent the response and freed it, which can be
 * after its client returned): tests wait for 0 before arming a fault that the next call must meet. */
unsigned czk__rpc_server_live_calls(czk__rpc_server *s);
/* Stop accepting, cancel in-flight calls, join every thread, free. */
void czk__rpc_server_stop(czk__rpc_server *s);

/* One blocking unary call. timeout_ms 0 = none. Returns CZK_OK when the transport worked (then *grpc_code holds the
 * call's status; *resp and *resp_len the reply when *grpc_code == 0; *err the status message, malloc'd or NULL). */
czk_status czk__rpc_call(const char *target, const char *method, const uint8_t *req, size_t req_len,
                        uint64_t timeout_ms, size_t max_message_bytes, int *grpc_code, uint8_t **resp,
                        size_t *resp_len, char **err);

#endif
