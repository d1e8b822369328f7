/* client.h: the client side of the cuzk.v1 gRPC API: helpers shared by the client subcommands, `czk demo` and the
 * load generators of bench/ (client.c). */
#ifndef CZK_API_CLIENT_H
#define CZK_API_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk_v1.pb-c.h"

/* Largest message the client sends or accepts (and the largest job input file it reads). */
#define CZK__CLIENT_MAX_MSG (256u << 20)

/* The daemon's default address (what `czk daemon` listens on without configuration). Static buffer. */
const char *czk__client_default_addr(void);
/* One unary call with protobuf-c messages. *out is unpacked with `out_desc` (free with protobuf_c_message_free_unpacked).
 * Returns the gRPC code (0 ok); on failure prints "czk: <what>: <message>" to stderr unless quiet. */
int czk__client_call(const char *addr, const char *method, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *out_desc, ProtobufCMessage **out, uint64_t timeout_ms,
                     bool quiet, char *errbuf, size_t errlen);
/* "low|normal|high|critical" or 0..4 -> priority; -1 on junk. */
int czk__client_parse_priority(const char *s);
const char *czk__client_priority_name(int p);
const char *czk__client_await_status_name(int s);

#endif
