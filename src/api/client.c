/* client.c: the client side of the cuzk.v1 gRPC API (api/client.h), shared by the client subcommands, `czk demo`
 * and the load generators of bench/: the default address, one unary call with protobuf-c messages over the rpc
 * transport (api/rpc.h), and the names of priorities and await states. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/client.h"
#include "api/config.h"
#include "api/rpc.h"

const char *czk__client_default_addr(void) {
  static char addr[4200];
  const char *env = getenv("CZK_ADDR");
  if (env && *env) return env;
  czk__config c;
  char err[256];
  if (czk__config_init(&c) != CZK_OK || czk__config_finalize(&c, err, sizeof err) != CZK_OK) return "unix:/tmp/czk.sock";
  snprintf(addr, sizeof addr, "%s", c.listen);
  czk__config_free(&c);
  return addr;
}

int czk__client_call(const char *addr, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *out_desc, ProtobufCMessage **out, uint64_t timeout_ms,
                     bool quiet, char *errbuf, size_t errlen) {
  *out = NULL;
  size_t n = protobuf_c_message_get_packed_size(req);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) return CZK_GRPC_RESOURCE_EXHAUSTED;
  protobuf_c_message_pack(req, buf);
  int code;
  uint8_t *resp;
  size_t resp_len;
  char *err;
  czk_status st = czk__rpc_call(addr, method, buf, n, timeout_ms, CZK__CLIENT_MAX_MSG, &code, &resp, &resp_len, &err);
  free(buf);
  if (st != CZK_OK && code == CZK_GRPC_OK) code = CZK_GRPC_UNAVAILABLE;
  if (code == CZK_GRPC_OK) {
    *out = protobuf_c_message_unpack(out_desc, NULL, resp_len, resp);
    if (!*out) {
      code = CZK_GRPC_INTERNAL;
      free(err);
      err = strdup("malformed response");
    }
  }
  if (code != CZK_GRPC_OK) {
    if (errbuf) snprintf(errbuf, errlen, "%s", err ? err : "");
    if (!quiet)
      fprintf(stderr, "czk: %s: %s (gRPC code %d)%s\n", strrchr(method, '/') + 1,
              err && *err ? err : (code == CZK_GRPC_UNAVAILABLE ? "daemon unreachable" : "failed"), code,
              code == CZK_GRPC_UNAVAILABLE ? " — is `czk daemon` running? (--addr)" : "");
  }
  free(resp);
  free(err);
  return code;
}

int czk__client_parse_priority(const char *s) {
  static const char *const names[] = {"unspecified", "low", "normal", "high", "critical"};
  for (int i = 0; i < 5; i++)
    if (strcasecmp(s, names[i]) == 0) return i;
  if (s[0] >= '0' && s[0] <= '4' && s[1] == 0) return s[0] - '0';
  return -1;
}
const char *czk__client_priority_name(int p) {
  static const char *const names[] = {"unspecified", "low", "normal", "high", "critical"};
  return p >= 0 && p < 5 ? names[p] : "?";
}
const char *czk__client_await_status_name(int s) {
  static const char *const names[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
  return s >= 0 && s < 5 ? names[s] : "?";
}

