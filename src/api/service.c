/* service.c: cuzk.v1.ProvingEngine and czk.v1 Admin handlers (see service.h for the mapping and status codes).
 * Invariants: czk__service_handle dispatches by method path (unknown: UNIMPLEMENTED) and counts every call in
 * s->metrics by method and returned gRPC code; engine statuses map to gRPC codes in one place
 * (czk__service_grpc_code); a proof buffer placed in a response stays owned by its czk_engine_result until the response
 * is packed; handlers hold no lock of their own (the engine and render.c's metrics mutex serialize what is shared). */
#include "api/service.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/rpc.h"
#include "core/clock.h"
#include "core/mapfile.h"
#include "core/units.h"
#include "cuzk_v1.pb-c.h"
#include "czk/kinds.h"
#include "czk/log.h"

enum { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT, M_TRACE };

void czk__service_init(czk__service *s, czk_engine *engine, unsigned default_synthetic_k) {
  memset(s, 0, sizeof *s);
  s->engine = engine;
  s->default_synthetic_k = default_synthetic_k;
  s->max_submit_bytes = CZK_API_SUBMIT_MESSAGE;
  s->cpu_sector_limit = 512ull << 20;
  s->request_budget_wait_ms = 10000;
  czk__api_metrics_init(&s->metrics);
}

void czk__service_destroy(czk__service *s) { czk__api_metrics_destroy(&s->metrics); }

int czk__service_grpc_code(czk_status st) {
  switch (st) {
  case CZK_OK: return CZK_GRPC_OK;
  case CZK_ERR_NOT_FOUND: return CZK_GRPC_NOT_FOUND;
  case CZK_ERR_BUDGET: return CZK_GRPC_RESOURCE_EXHAUSTED;
  case CZK_ERR_SHUTDOWN: return CZK_GRPC_UNAVAILABLE;
  case CZK_ERR_NO_DEVICE: return CZK_GRPC_UNAVAILABLE; /* every device quarantined: this daemon cannot prove */
  case CZK_ERR_STATE: return CZK_GRPC_FAILED_PRECONDITION;
  case CZK_ERR_NOMEM: return CZK_GRPC_RESOURCE_EXHAUSTED;
  case CZK_ERR_TIMEOUT: return CZK_GRPC_DEADLINE_EXCEEDED;
  case CZK_ERR_CANCELLED: return CZK_GRPC_CANCELLED;
  case CZK_ERR_INTERNAL:
  case CZK_ERR_FILE_CHANGED: /* a server-side file, not the request: the next job reloads it */
  case CZK_ERR_DEVICE:
  case CZK_ERR_IO: return CZK_GRPC_INTERNAL;
  default: return CZK_GRPC_INVALID_ARGUMENT; /* malformed, truncated, limits, unsupported ... */
  }
}

static char *errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *errf(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return strdup(buf);
}

/* Pack any protobuf-c message into a malloc'd buffer. */
static int pack(const ProtobufCMessage *m, uint8_t **out, size_t *len) {
  size_t n = protobuf_c_message_get_packed_size(m);
  uint8_t *p = malloc(n ? n : 1);
  if (!p) return CZK_GRPC_RESOURCE_EXHAUSTED;
  protobuf_c_message_pack(m, p);
  *out = p;
  *len = n;
  return CZK_GRPC_OK;
}

/* ---- bounded decoding -------------------------------------------------------------------------------------------
 * protobuf-c allocates per field (an unknown field costs a ~40-byte record plus a copy of its bytes; a repeated bytes
 * entry a 16-byte slot plus its bytes), so a message of many tiny fields decodes into ~46x its size. Every unpack
 * runs on a counting allocator that refuses to hand out more than 2 x the message + 64 KiB (each allocation counted
 * with 16 bytes of allocator overhead): a legitimate request (a few big bytes fields) needs about 1 x. Before that,
 * a message over its method's limit (max_submit_bytes for SubmitProof and Prove, CZK_API_SMALL_MESSAGE for the
 * others) is refused unread. */
typedef struct decode_budget {
  ProtobufCAllocator a;
  size_t used, cap;
  bool exceeded;
} decode_budget;

static void *db_alloc(void *ctx, size_t size) {
  decode_budget *d = ctx;
  size_t cost = size + 16;
  if (cost < size || d->used + cost > d->cap || d->used + cost < d->used) {
    d->exceeded = true;
    return NULL;
  }
  void *p = malloc(size ? size : 1);
  if (p) d->used += cost;
  return p;
}
static void db_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}
static size_t db_cap(size_t msg_len) {
  return msg_len > (SIZE_MAX - (64u << 10)) / 2 ? SIZE_MAX : 2 * msg_len + (64u << 10);
}
static void db_init(decode_budget *d, size_t msg_len) {
  memset(d, 0, sizeof *d);
  d->a.alloc = db_alloc;
  d->a.free = db_free;
  d->a.allocator_data = d;
  d->cap = db_cap(msg_len);
}

uint64_t czk__service_request_bytes(size_t req_len) {
  uint64_t n = req_len, cap = db_cap(req_len);
  if (cap == SIZE_MAX || n > (UINT64_MAX - cap) / 2) return UINT64_MAX;
  return 2 * n + cap;
}

/* ---- request memory in the budget ------------------------------------------------------------------------------
 * A SubmitProof / Prove reserves czk__service_request_bytes(req_len) in the engine's budget (category request) after
 * its size check and before its decode; once the kind's parse is done (czk_engine_submit_held), a new job takes the
 * part its parsed input keeps (the kind's parsed_bytes) until its last partition ends, and the rest is released here
 * (all of it when the request attached to a job in flight or failed). Prove frees its decoded request and releases the reservation
 * before it waits for the job. A request the budget can never cover (even with every unused key evicted) is refused
 * at once, RESOURCE_EXHAUSTED; one that waits longer than request_budget_wait_ms for jobs in flight to return memory
 * is refused the same way; a client that goes away while it waits ends the wait (CANCELLED). Other RPCs never wait
 * on it (each call has its own thread; the wait holds no lock). */
static int hold_request(czk__service *s, const char *name, size_t req_len, czk_reservation *hold, char **err) {
  memset(hold, 0, sizeof *hold);
  uint64_t bytes = czk__service_request_bytes(req_len);
  uint64_t deadline = czk__clock_now_ns() + s->request_budget_wait_ms * CZK_NS_PER_MS;
  char why[320];
  for (;;) {
    uint64_t slice = czk__clock_now_ns() + 200 * CZK_NS_PER_MS;
    czk_status st = czk_engine_request_reserve(s->engine, bytes, slice < deadline ? slice : deadline, hold, why,
                                               sizeof why);
    if (st == CZK_OK) return CZK_GRPC_OK;
    if (st == CZK_ERR_TIMEOUT && czk__clock_now_ns() < deadline) {
      if (!czk__rpc_client_gone()) continue;
      *err = errf("%s: the client went away while the request waited for memory", name);
      return CZK_GRPC_CANCELLED;
    }
    *err = errf("%s of %zu bytes refused: %s", name, req_len, why[0] ? why : czk_status_str(st));
    return st == CZK_ERR_BUDGET || st == CZK_ERR_TIMEOUT ? CZK_GRPC_RESOURCE_EXHAUSTED : czk__service_grpc_code(st);
  }
}

static bool wire_varint(const uint8_t *p, size_t len, size_t *o, uint64_t *v) {
  *v = 0;
  for (unsigned sh = 0; sh < 64 && *o < len; sh += 7) {
    uint8_t b = p[(*o)++];
    *v |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) return true;
  }
  return false;
}

/* A string field holding a NUL byte: protobuf-c's char* would end there, so "a\0b" and "a\0c" would be one request
 * id (two jobs attached to one). Walks the wire format of desc and of its nested messages (no allocation); false with
 * the field's name on a NUL. Malformed wire data is left to the unpacker to refuse. */
static bool strings_clean(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len, int depth,
                          const char **field) {
  size_t o = 0;
  while (o < len) {
    uint64_t key, v;
    if (!wire_varint(p, len, &o, &key)) return true;
    switch (key & 7) {
    case 0:
      if (!wire_varint(p, len, &o, &v)) return true;
      break;
    case 1:
      if (len - o < 8) return true;
      o += 8;
      break;
    case 5:
      if (len - o < 4) return true;
      o += 4;
      break;
    case 2: {
      if (!wire_varint(p, len, &o, &v) || v > len - o) return true;
      const ProtobufCFieldDescriptor *f =
          key >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3)) : NULL;
      if (f && f->type == PROTOBUF_C_TYPE_STRING && memchr(p + o, 0, (size_t)v)) {
        *field = f->name;
        return false;
      }
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && depth < 8 &&
          !strings_clean(f->descriptor, p + o, (size_t)v, depth + 1, field))
        return false;
      o += (size_t)v;
      break;
    }
    default:
      return true;
    }
  }
  return true;
}

/* Unpack req as `desc` within its limits; NULL with the gRPC code in *code and the reason in *err. */
static ProtobufCMessage *decode(const ProtobufCMessageDescriptor *desc, decode_budget *d, const uint8_t *req,
                                size_t req_len, size_t limit, int *code, char **err) {
  const char *name = desc->short_name;
  if (req_len > limit) {
    *err = errf("%s of %zu bytes is over the %zu-byte limit of this method", name, req_len, limit);
    *code = CZK_GRPC_RESOURCE_EXHAUSTED;
    return NULL;
  }
  const char *field = NULL;
  if (!strings_clean(desc, req, req_len, 0, &field)) {
    *err = errf("%s: %s contains a NUL byte", name, field);
    *code = CZK_GRPC_INVALID_ARGUMENT;
    return NULL;
  }
  db_init(d, req_len);
  ProtobufCMessage *m = protobuf_c_message_unpack(desc, &d->a, req_len, req);
  if (!m && d->exceeded) {
    *err = errf("%s of %zu bytes would take more than %zu bytes to decode (too many fields)", name, req_len, d->cap);
    *code = CZK_GRPC_RESOURCE_EXHAUSTED;
  } else if (!m) {
    *err = errf("malformed %s", name);
    *code = CZK_GRPC_INVALID_ARGUMENT;
  }
  return m;
}

static bool parse_job_id(const char *s, uint64_t *id) {
  if (!s || !*s || strlen(s) > 20) return false;
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (!isdigit((unsigned char)*p)) return false;
    uint64_t nv = v * 10 + (uint64_t)(*p - '0');
    if (nv / 10 != v) return false;
    v = nv;
  }
  *id = v;
  return v != 0;
}

/* The request as a plain C struct (czk/kinds.h): kinds never see protobuf. vp: storage for vanilla_proofs. */
static void decode_request(const Cuzk__V1__SubmitProofRequest *r, czk_kind_request *q, czk_bytes *vp) {
  memset(q, 0, sizeof *q);
  q->proof_kind = (uint32_t)r->proof_kind;
  q->sector_size = r->sector_size;
  q->registered_proof = r->registered_proof;
  q->vanilla_proof = (czk_bytes){r->vanilla_proof.data, r->vanilla_proof.len};
  for (size_t i = 0; i < r->n_vanilla_proofs; i++) vp[i] = (czk_bytes){r->vanilla_proofs[i].data, r->vanilla_proofs[i].len};
  q->vanilla_proofs = vp;
  q->n_vanilla_proofs = r->n_vanilla_proofs;
  q->sector_number = r->sector_number;
  q->miner_id = r->miner_id;
  q->randomness = (czk_bytes){r->randomness.data, r->randomness.len};
  q->partition_index = r->partition_index;
  q->comm_r_old = (czk_bytes){r->comm_r_old.data, r->comm_r_old.len};
  q->comm_r_new = (czk_bytes){r->comm_r_new.data, r->comm_r_new.len};
  q->comm_d_new = (czk_bytes){r->comm_d_new.data, r->comm_d_new.len};
}

static int do_submit(czk__service *s, const Cuzk__V1__SubmitProofRequest *r, czk_engine_submit_info *info, czk_priority *prio,
                     czk_reservation *hold, char **err) {
  if ((int)r->priority < 0 || (int)r->priority > 4) {
    *err = errf("unknown priority %d", (int)r->priority);
    return CZK_GRPC_INVALID_ARGUMENT;
  }
  *prio = (czk_priority)r->priority;
  if (r->request_id && strlen(r->request_id) > 256) {
    *err = errf("request_id longer than 256 bytes");
    return CZK_GRPC_INVALID_ARGUMENT;
  }
  char kind[96], why[160], perr[320] = "";
  czk_kind_request req;
  czk_bytes *vp = calloc(r->n_vanilla_proofs + 1, sizeof *vp);
  if (!vp) return CZK_GRPC_RESOURCE_EXHAUSTED;
  decode_request(r, &req, vp);
  if (czk_kind_name_for(&req, s->default_synthetic_k, kind, sizeof kind, why, sizeof why) != CZK_OK) {
    free(vp);
    *err = errf("%s", why);
    return CZK_GRPC_INVALID_ARGUMENT;
  }
  req.error = perr;
  req.error_len = sizeof perr;
  /* no silent CPU proving of a Filecoin-size job: the kind's name ends in its sector size ("porep-c2-32GiB") */
  uint64_t sector = 0;
  const char *dash = strrchr(kind, '-');
  if (s->info.cpu_only && !s->allow_cpu_large_sectors && s->cpu_sector_limit && req.proof_kind >= 1 &&
      req.proof_kind <= 4 && dash && czk__parse_size(dash + 1, &sector) && sector >= s->cpu_sector_limit) {
    free(vp);
    *err = errf("%s: refused: this daemon proves on the CPU only (%s), where a %s sector takes hours; give it a "
                "usable GPU, or set allow_cpu_large_sectors = true to accept such jobs anyway",
                kind, s->info.cpu_fallback ? "CPU fallback: no usable GPU" : "no GPU", dash + 1);
    return CZK_GRPC_FAILED_PRECONDITION;
  }
  czk_status st =
      czk_engine_submit_held(s->engine, kind, *prio, r->request_id, (const uint8_t *)&req, sizeof req, hold, info);
  free(vp);
  if (st == CZK_OK) return CZK_GRPC_OK;
  if (st == CZK_ERR_NOT_FOUND && s->kind_over_budget && s->kind_over_budget(kind)) {
    *err = errf("%s: one partition can never fit the memory budget", kind);
    return CZK_GRPC_RESOURCE_EXHAUSTED;
  }
  if (st == CZK_ERR_NOT_FOUND) {
    *err = errf("proof kind %s is not supported by this daemon", kind);
    return CZK_GRPC_INVALID_ARGUMENT;
  }
  /* a parser's reason says what is wrong; the status text ("proof verification failed") would mislead */
  *err = perr[0] ? errf("%s: %s", kind, perr) : errf("%s: %s", kind, czk_status_str(st));
  return czk__service_grpc_code(st);
}

/* The job an AwaitProof / CancelProof names in its job_id field: a job id (digits), "request:RID" for a request id,
 * or any other text taken as a request id (czk's job ids are decimal, so that cannot be one). On success idbuf holds
 * the job id as text. */
static bool resolve_job(czk__service *s, const char *text, uint64_t *id, char idbuf[24]) {
  if (!text) return false;
  if (parse_job_id(text, id)) {
    snprintf(idbuf, 24, "%llu", (unsigned long long)*id);
    return true;
  }
  const char *rid = strncmp(text, "request:", 8) == 0 ? text + 8 : text;
  if (!*rid || czk_engine_job_by_request(s->engine, rid, id) != CZK_OK) return false;
  snprintf(idbuf, 24, "%llu", (unsigned long long)*id);
  return true;
}

/* Await and fill an AwaitProofResponse (proof buffer stays owned by res). */
/* keybuf: storage for the key id a still-running job waits for (must live until the response is packed) */
static int do_await(czk__service *s, uint64_t job_id, uint64_t timeout_ms, czk_engine_result *res,
                    Cuzk__V1__AwaitProofResponse *out, char *job_str, char keybuf[64], char **err) {
  /* wait in slices of at most 200 ms, so that a client that went away frees its call slot (issue 22 defect 8) */
  uint64_t deadline = timeout_ms ? czk__clock_now_ns() + timeout_ms * CZK_NS_PER_MS : 0;
  czk_status st;
  for (;;) {
    uint64_t slice = 200, now = czk__clock_now_ns();
    if (deadline) slice = deadline > now ? (deadline - now + CZK_NS_PER_MS - 1) / CZK_NS_PER_MS : 1;
    if (slice > 200) slice = 200;
    st = czk_engine_await(s->engine, job_id, slice, res);
    if (st != CZK_ERR_TIMEOUT || (deadline && czk__clock_now_ns() >= deadline)) break;
    if (czk__rpc_client_gone()) {
      *err = errf("job %s: the client went away", job_str);
      return CZK_GRPC_CANCELLED;
    }
    czk_engine_result_free(res);
  }
  if (st == CZK_ERR_NOT_FOUND) {
    *err = errf("job %s not found (unknown, or its result was pruned)", job_str);
    return CZK_GRPC_NOT_FOUND;
  }
  out->job_id = job_str;
  switch (st) {
  case CZK_OK:
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    out->proof.data = res->proof;
    out->proof.len = res->proof_len;
    break;
  case CZK_ERR_CANCELLED: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED; break;
  case CZK_ERR_TIMEOUT: {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
    /* where the job stands, for a client that prints progress (czk await / czk prove) */
    czk_engine_job_info ji;
    if (czk_engine_job_info_get(s->engine, job_id, &ji) == CZK_OK) {
      out->czk_stage = (char *)czk_engine_job_stage(&ji);
      if (ji.key_loading) {
        snprintf(keybuf, 64, "%s", ji.key_id);
        out->czk_key_id = keybuf;
        out->czk_key_bytes = ji.key_bytes;
        out->czk_key_generating = ji.key_generating;
        out->czk_key_load_ms = ji.key_load_ms;
      }
    }
    break;
  }
  default: out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED; break;
  }
  if (st != CZK_OK) out->error_message = res->error[0] ? res->error : (char *)czk_status_str(st);
  out->queue_wait_ms = res->queue_wait_ms;
  out->srs_load_ms = res->srs_load_ms;
  out->synthesis_ms = res->synthesis_ms;
  out->gpu_compute_ms = res->gpu_compute_ms;
  out->total_ms = res->total_ms;
  return CZK_GRPC_OK;
}

/* czk's key tier onto the reference's enum: HOT (device or pinned: ready to prove), WARM (mapped), COLD (disk) */
static Cuzk__V1__SRSStatus__Tier srs_tier(czk_key_tier t) {
  return t <= CZK_KEY_TIER_PINNED ? CUZK__V1__SRSSTATUS__TIER__HOT
         : t == CZK_KEY_TIER_MAPPED ? CUZK__V1__SRSSTATUS__TIER__WARM
                                    : CUZK__V1__SRSSTATUS__TIER__COLD;
}

static int handle(czk__service *s, int m, const uint8_t *req, size_t req_len, uint8_t **resp, size_t *resp_len,
                  char **err) {
  switch (m) {
  case M_SUBMIT: {
    decode_budget db;
    czk_reservation hold;
    memset(&hold, 0, sizeof hold);
    int code = req_len > s->max_submit_bytes ? CZK_GRPC_OK
               : hold_request(s, cuzk__v1__submit_proof_request__descriptor.short_name, req_len, &hold, err);
    if (code != CZK_GRPC_OK) return code;
    Cuzk__V1__SubmitProofRequest *r = (Cuzk__V1__SubmitProofRequest *)decode(
        &cuzk__v1__submit_proof_request__descriptor, &db, req, req_len, s->max_submit_bytes, &code, err);
    if (!r) {
      czk_engine_request_release(s->engine, &hold);
      return code;
    }
    czk_engine_submit_info info;
    czk_priority prio;
    code = do_submit(s, r, &info, &prio, &hold, err);
    cuzk__v1__submit_proof_request__free_unpacked(r, &db.a);
    czk_engine_request_release(s->engine, &hold); /* parsed: the job took its input's part over (what is left goes) */
    if (code == CZK_GRPC_OK) {
      char id[24];
      snprintf(id, sizeof id, "%llu", (unsigned long long)info.job_id);
      Cuzk__V1__SubmitProofResponse out = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
      out.job_id = id;
      out.queue_position = info.queue_position;
      out.assigned_gpu = "";
      code = pack(&out.base, resp, resp_len);
    }
    return code;
  }
  case M_AWAIT: {
    decode_budget db;
    int code;
    Cuzk__V1__AwaitProofRequest *r = (Cuzk__V1__AwaitProofRequest *)decode(
        &cuzk__v1__await_proof_request__descriptor, &db, req, req_len, CZK_API_SMALL_MESSAGE, &code, err);
    if (!r) return code;
    uint64_t id;
    char idbuf[24];
    if (!resolve_job(s, r->job_id, &id, idbuf)) {
      *err = errf("job %s not found (neither a job id nor a request id in flight or completed)",
                  r->job_id ? r->job_id : "");
      code = CZK_GRPC_NOT_FOUND;
    } else {
      czk_engine_result res;
      char keybuf[64];
      Cuzk__V1__AwaitProofResponse out = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
      code = do_await(s, id, r->timeout_ms, &res, &out, idbuf, keybuf, err);
      if (code == CZK_GRPC_OK) code = pack(&out.base, resp, resp_len);
      czk_engine_result_free(&res);
    }
    cuzk__v1__await_proof_request__free_unpacked(r, &db.a);
    return code;
  }
  case M_PROVE: {
    decode_budget db;
    czk_reservation hold;
    memset(&hold, 0, sizeof hold);
    int code = req_len > s->max_submit_bytes ? CZK_GRPC_OK
               : hold_request(s, cuzk__v1__prove_request__descriptor.short_name, req_len, &hold, err);
    if (code != CZK_GRPC_OK) return code;
    Cuzk__V1__ProveRequest *r = (Cuzk__V1__ProveRequest *)decode(&cuzk__v1__prove_request__descriptor, &db, req,
                                                                 req_len, s->max_submit_bytes, &code, err);
    if (!r) {
      czk_engine_request_release(s->engine, &hold);
      return code;
    }
    czk_engine_submit_info info;
    if (!r->submit) {
      *err = errf("ProveRequest without submit");
      code = CZK_GRPC_INVALID_ARGUMENT;
    } else {
      czk_priority prio;
      code = do_submit(s, r->submit, &info, &prio, &hold, err);
    }
    /* parsed: drop the decoded request, the transport's copy of the message and their reservation before waiting
     * for the job */
    cuzk__v1__prove_request__free_unpacked(r, &db.a);
    czk__rpc_release_request();
    czk_engine_request_release(s->engine, &hold);
    if (code == CZK_GRPC_OK) {
      char id[24];
      snprintf(id, sizeof id, "%llu", (unsigned long long)info.job_id);
      czk_engine_result res;
      char keybuf[64];
      Cuzk__V1__AwaitProofResponse ar = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
      code = do_await(s, info.job_id, 0, &res, &ar, id, keybuf, err);
      if (code == CZK_GRPC_OK) {
        Cuzk__V1__ProveResponse out = CUZK__V1__PROVE_RESPONSE__INIT;
        out.result = &ar;
        code = pack(&out.base, resp, resp_len);
      }
      czk_engine_result_free(&res);
    }
    return code;
  }
  case M_CANCEL: {
    decode_budget db;
    int code;
    Cuzk__V1__CancelProofRequest *r = (Cuzk__V1__CancelProofRequest *)decode(
        &cuzk__v1__cancel_proof_request__descriptor, &db, req, req_len, CZK_API_SMALL_MESSAGE, &code, err);
    if (!r) return code;
    uint64_t id;
    char idbuf[24];
    bool was_running = false;
    if (!resolve_job(s, r->job_id, &id, idbuf)) {
      *err = errf("job %s not found (neither a job id nor a request id in flight or completed)",
                  r->job_id ? r->job_id : "");
      code = CZK_GRPC_NOT_FOUND;
    } else {
      czk_status st = czk_engine_cancel(s->engine, id, &was_running);
      if (st == CZK_OK) {
        Cuzk__V1__CancelProofResponse out = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        out.was_running = was_running;
        code = pack(&out.base, resp, resp_len);
      } else {
        code = czk__service_grpc_code(st);
        *err = st == CZK_ERR_STATE ? errf("job %s already ended", r->job_id)
                                   : errf("job %s: %s", r->job_id, czk_status_str(st));
      }
    }
    cuzk__v1__cancel_proof_request__free_unpacked(r, &db.a);
    return code;
  }
  case M_STATUS: {
    czk_engine_status *st;
    czk_status rc = czk_engine_status_get(s->engine, &st);
    if (rc != CZK_OK) {
      *err = errf("status: %s", czk_status_str(rc));
      return CZK_GRPC_INTERNAL;
    }
    Cuzk__V1__GetStatusResponse out = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    Cuzk__V1__GPUStatus *gpus = calloc(st->ndevices + 1, sizeof *gpus);
    Cuzk__V1__GPUStatus **gpp = calloc(st->ndevices + 1, sizeof *gpp);
    Cuzk__V1__SRSStatus *srs = calloc(st->nkeys + 1, sizeof *srs);
    Cuzk__V1__SRSStatus **srp = calloc(st->nkeys + 1, sizeof *srp);
    Cuzk__V1__QueueStatus *qs = calloc(st->nkinds + 1, sizeof *qs);
    Cuzk__V1__QueueStatus **qp = calloc(st->nkinds + 1, sizeof *qp);
    /* extensions: every key with its files (czk_keys), and the files of the cached ones (loaded_srs) */
    Cuzk__V1__SRSStatus *ks = calloc(st->nsources + 1, sizeof *ks);
    Cuzk__V1__SRSStatus **kp = calloc(st->nsources + 1, sizeof *kp);
    Cuzk__V1__KeyFile *kf = calloc((size_t)st->nsources * CZK_ENGINE_KEY_FILES + 1, sizeof *kf);
    Cuzk__V1__KeyFile **kfp = calloc((size_t)st->nsources * CZK_ENGINE_KEY_FILES + 1, sizeof *kfp);
    char(*jobs)[24] = calloc(st->ndevices + 1, sizeof *jobs);
    char(*tiers)[160] = calloc(st->nkeys + 1, sizeof *tiers); /* per key: "0:resident/compact,..." */
    for (uint32_t k = 0; tiers && k < st->nkeys; k++) {
      size_t len = 0;
      for (uint32_t d = 0; d < st->ndevices && d < CZK_ENGINE_STATUS_DEVICES; d++)
        if (st->keys[k].dev_tier[d] && len < sizeof tiers[k])
          len += (size_t)snprintf(tiers[k] + len, sizeof tiers[k] - len, "%s%u:%s/%s", len ? "," : "", d,
                                  czk_engine_dev_tier_str((czk_engine_dev_tier)st->keys[k].dev_tier[d]),
                                  czk_engine_lane_shape_str(st->keys[k].dev_shape[d]));
    }
    int code = CZK_GRPC_OK;
    if (!gpus || !gpp || !srs || !srp || !qs || !qp || !jobs || !ks || !kp || !kf || !kfp || !tiers) {
      code = CZK_GRPC_RESOURCE_EXHAUSTED;
    } else {
      for (uint32_t i = 0; i < st->nsources; i++) {
        const czk_engine_key_source *src = &st->sources[i];
        for (uint32_t f = 0; f < src->nfiles; f++) {
          Cuzk__V1__KeyFile *x = &kf[i * CZK_ENGINE_KEY_FILES + f];
          cuzk__v1__key_file__init(x);
          x->path = (char *)src->files[f].path;
          x->size_bytes = src->files[f].bytes;
          x->present = src->files[f].present;
          kfp[i * CZK_ENGINE_KEY_FILES + f] = x;
        }
        cuzk__v1__srsstatus__init(&ks[i]);
        ks[i].circuit_id = (char *)src->key_id;
        ks[i].tier = srs_tier(src->tier);
        ks[i].czk_tier = (char *)czk_key_tier_str(src->tier);
        ks[i].n_czk_files = src->nfiles;
        ks[i].czk_files = &kfp[i * CZK_ENGINE_KEY_FILES];
        for (uint32_t k = 0; k < st->nkeys; k++)
          if (strcmp(st->keys[k].key_id, src->key_id) == 0) {
            ks[i].size_bytes = st->keys[k].bytes;
            ks[i].ref_count = st->keys[k].refs;
            ks[i].czk_device_tiers = tiers[k];
          }
        kp[i] = &ks[i];
      }
      for (uint32_t i = 0; i < st->ndevices; i++) {
        cuzk__v1__gpustatus__init(&gpus[i]);
        gpus[i].ordinal = st->devices[i].ordinal;
        gpus[i].name = st->devices[i].name;
        gpus[i].vram_total_bytes = st->devices[i].mem_total_bytes;
        gpus[i].vram_free_bytes = st->devices[i].mem_free_bytes;
        gpus[i].current_job_id = "";
        gpus[i].current_proof_kind = "";
        for (uint32_t w = 0; w < st->nworkers; w++) {
          const czk_engine_worker_status *ws = &st->workers[w];
          if (strcmp(ws->role, "prove") == 0 && ws->device == st->devices[i].ordinal && ws->job_id) {
            snprintf(jobs[i], sizeof jobs[i], "%llu", (unsigned long long)ws->job_id);
            gpus[i].current_job_id = jobs[i];
            gpus[i].current_proof_kind = (char *)ws->kind;
            break;
          }
        }
        gpp[i] = &gpus[i];
      }
      for (uint32_t i = 0; i < st->nkeys; i++) {
        cuzk__v1__srsstatus__init(&srs[i]);
        srs[i].circuit_id = st->keys[i].key_id;
        srs[i].tier = srs_tier(st->keys[i].tier);
        srs[i].czk_tier = (char *)czk_key_tier_str(st->keys[i].tier);
        srs[i].size_bytes = st->keys[i].bytes;
        srs[i].ref_count = st->keys[i].refs;
        srs[i].czk_device_tiers = tiers[i];
        for (uint32_t k = 0; k < st->nsources; k++)
          if (strcmp(st->sources[k].key_id, st->keys[i].key_id) == 0) {
            srs[i].n_czk_files = st->sources[k].nfiles;
            srs[i].czk_files = &kfp[k * CZK_ENGINE_KEY_FILES];
          }
        srp[i] = &srs[i];
      }
      for (uint32_t i = 0; i < st->nkinds; i++) {
        cuzk__v1__queue_status__init(&qs[i]);
        qs[i].proof_kind = st->kinds[i].name;
        qs[i].pending = st->kinds[i].pending;
        qs[i].in_progress = st->kinds[i].in_progress;
        qs[i].czk_submitted = st->kinds[i].submitted;
        qs[i].czk_completed = st->kinds[i].completed;
        qs[i].czk_failed = st->kinds[i].failed;
        qp[i] = &qs[i];
      }
      out.n_czk_keys = st->nsources;
      out.czk_keys = kp;
      out.czk_cpu_fallback = s->info.cpu_fallback;
      out.czk_cpu_fallback_reason = s->info.cpu_fallback_reason;
      out.czk_version = (char *)(s->info.version ? s->info.version : "unknown");
      out.n_gpus = st->ndevices;
      out.gpus = gpp;
      out.n_loaded_srs = st->nkeys;
      out.loaded_srs = srp;
      out.n_queues = st->nkinds;
      out.queues = qp;
      out.total_proofs_completed = st->jobs_completed;
      out.total_proofs_failed = st->jobs_failed;
      out.uptime_seconds = st->uptime_ns / 1000000000ull;
      out.pinned_memory_bytes = st->mem_used;
      out.pinned_memory_limit_bytes = st->mem_limit;
      code = pack(&out.base, resp, resp_len);
    }
    free(gpus);
    free(gpp);
    free(srs);
    free(tiers);
    free(srp);
    free(qs);
    free(qp);
    free(jobs);
    free(ks);
    free(kp);
    free(kf);
    free(kfp);
    czk_engine_status_free(st);
    return code;
  }
  case M_METRICS: {
    czk_engine_status *st;
    if (czk_engine_status_get(s->engine, &st) != CZK_OK) {
      *err = errf("status unavailable");
      return CZK_GRPC_INTERNAL;
    }
    czk__strbuf sb;
    czk__sb_init(&sb);
    czk__render_metrics(&sb, st, &s->metrics, &s->info);
    czk_engine_status_free(st);
    char *text = czk__sb_take(&sb, NULL);
    if (!text) return CZK_GRPC_RESOURCE_EXHAUSTED;
    Cuzk__V1__GetMetricsResponse out = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    out.prometheus_text = text;
    int code = pack(&out.base, resp, resp_len);
    free(text);
    return code;
  }
  case M_PRELOAD:
  case M_EVICT: {
    /* PreloadSrsRequest and EvictSrsRequest have the same shape */
    decode_budget db;
    int code;
    Cuzk__V1__PreloadSrsRequest *r = (Cuzk__V1__PreloadSrsRequest *)decode(
        &cuzk__v1__preload_srs_request__descriptor, &db, req, req_len, CZK_API_SMALL_MESSAGE, &code, err);
    if (!r) return code;
    if (!r->circuit_id || !*r->circuit_id) {
      *err = errf("circuit_id is required");
      code = CZK_GRPC_INVALID_ARGUMENT;
    } else if (m == M_PRELOAD) {
      bool already = false;
      uint64_t ms = 0;
      czk_status st = czk_engine_key_preload(s->engine, r->circuit_id, &already, &ms);
      if (st == CZK_OK) {
        Cuzk__V1__PreloadSrsResponse out = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
        out.already_loaded = already;
        out.load_time_ms = ms;
        code = pack(&out.base, resp, resp_len);
      } else {
        code = czk__service_grpc_code(st);
        *err = errf("preload %s: %s", r->circuit_id, czk_status_str(st));
      }
    } else {
      bool was = false;
      uint64_t freed = 0;
      czk_status st = czk_engine_key_evict(s->engine, r->circuit_id, &was, &freed);
      if (st == CZK_OK) {
        Cuzk__V1__EvictSrsResponse out = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
        out.was_loaded = was;
        out.freed_bytes = freed;
        code = pack(&out.base, resp, resp_len);
      } else {
        code = czk__service_grpc_code(st);
        *err = st == CZK_ERR_STATE ? errf("evict %s: the key is in use", r->circuit_id)
                                   : errf("evict %s: %s", r->circuit_id, czk_status_str(st));
      }
    }
    cuzk__v1__preload_srs_request__free_unpacked(r, &db.a);
    return code;
  }
  case M_TRACE: {
    char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/czk-trace-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
      *err = errf("trace: cannot create a temporary file");
      return CZK_GRPC_INTERNAL;
    }
    close(fd);
    czk_status st = czk_engine_trace_write(s->engine, path);
    int code = CZK_GRPC_OK;
    char *text = NULL;
    if (st == CZK_OK) {
      uint8_t *data;
      size_t n;
      if (czk__read_file(path, SIZE_MAX, &data, &n) == CZK_OK) text = (char *)data; /* NUL-terminated */
    }
    unlink(path);
    if (!text) {
      *err = errf("trace: %s", st == CZK_OK ? "cannot read the trace back" : czk_status_str(st));
      return CZK_GRPC_INTERNAL;
    }
    Cuzk__V1__GetTraceResponse out = CUZK__V1__GET_TRACE_RESPONSE__INIT;
    out.chrome_trace_json = text;
    code = pack(&out.base, resp, resp_len);
    free(text);
    return code;
  }
  }
  return CZK_GRPC_UNIMPLEMENTED;
}

int czk__service_handle(void *user, const char *method, const uint8_t *req, size_t req_len, uint8_t **resp,
                       size_t *resp_len, char **err) {
  czk__service *s = user;
  static const char *const paths[CZK_API_METHODS] = {
      "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
      "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
      "/cuzk.v1.ProvingEngine/GetStatus",   "/cuzk.v1.ProvingEngine/GetMetrics",
      "/cuzk.v1.ProvingEngine/PreloadSRS",  "/cuzk.v1.ProvingEngine/EvictSRS",
      "/cuzk.v1.Admin/GetTrace"};
  int m = -1;
  for (int i = 0; i < CZK_API_METHODS; i++)
    if (strcmp(method, paths[i]) == 0) m = i;
  if (m < 0) {
    *err = errf("unknown method %s", method);
    return CZK_GRPC_UNIMPLEMENTED;
  }
  int code;
  if (m != M_SUBMIT && m != M_PROVE && req_len > CZK_API_SMALL_MESSAGE) { /* requests that are not decoded too */
    *err = errf("request of %zu bytes is over the %u-byte limit of this method", req_len, CZK_API_SMALL_MESSAGE);
    code = CZK_GRPC_RESOURCE_EXHAUSTED;
  } else {
    code = handle(s, m, req, req_len, resp, resp_len, err);
  }
  czk__api_metrics_request(&s->metrics, m, code);
  if (code != CZK_GRPC_OK) CZK_DEBUG("api", "%s -> code %d: %s", czk__api_method_names[m], code, *err ? *err : "");
  return code;
}
