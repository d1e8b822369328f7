/* rpc.c: unary gRPC server and client on gRPC's C core. See rpc.h for the threading model.
 *
 * Call lifecycle (server): the accept thread posts grpc_server_request_call with a fresh per-call pluck queue as the
 * call's queue; when the call arrives it starts a detached-count thread that (1) receives the message, (2) runs the
 * handler (after starting the close batch, so that the handler can ask czk__rpc_client_gone whether its client is still
 * there), (3) sends initial metadata + message + status and waits for the close, then frees the call and its queue.
 * A counter under a mutex tracks live call threads so stop() can wait for them. */
#include "api/rpc.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fault.h"
#include "czk/log.h"

struct czk__rpc_server {
  grpc_server *server;
  grpc_completion_queue *cq;
  pthread_t accept_thread;
  czk__rpc_handler handler;
  void *user;
  char *unix_path;
  unsigned max_calls;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned live_calls;
  int stopping;
};

typedef struct rpc_call {
  czk__rpc_server *srv;
  grpc_call *call;
  grpc_call_details details;
  grpc_metadata_array md;
  grpc_completion_queue *cq;
  int close_tag;       /* its address tags the RECV_CLOSE_ON_SERVER batch, started before the handler runs */
  bool close_started;  /* that batch was started */
  bool close_done;     /* ... and completed (plucked) */
  int cancelled;       /* set by gRPC when it completes: the client cancelled or went away */
  uint8_t *req;        /* our copy of the request while the handler runs (czk__rpc_release_request frees it early) */
  size_t req_len;
} rpc_call;

/* Bytes of request copies held by handlers now (czk__rpc_request_bytes_held). */
static size_t g_req_held;

/* The call whose handler runs on this thread (czk__rpc_client_gone). */
static _Thread_local rpc_call *tl_call;

bool czk__rpc_client_gone(void) {
  rpc_call *c = tl_call;
  if (!c || !c->close_started) return false;
  if (!c->close_done) {
    /* a pluck that does not wait: the close batch completes only when the call ends (we have sent no status yet, so
     * only a cancellation, a client deadline or a dropped connection can end it) */
    grpc_event ev = grpc_completion_queue_pluck(c->cq, &c->close_tag, gpr_now(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type != GRPC_OP_COMPLETE) return false;
    c->close_done = true;
    if (!ev.success) c->cancelled = 1;
  }
  return c->cancelled != 0;
}

void czk__rpc_release_request(void) {
  rpc_call *c = tl_call;
  if (!c || !c->req) return;
  free(c->req);
  c->req = NULL;
  __atomic_sub_fetch(&g_req_held, c->req_len, __ATOMIC_RELAXED);
}

size_t czk__rpc_request_bytes_held(void) { return __atomic_load_n(&g_req_held, __ATOMIC_RELAXED); }

static void *const k_shutdown_tag = (void *)&k_shutdown_tag;

#ifdef CZK_TSAN
/* ThreadSanitizer suppressions, compiled into every binary that links this file (the daemon, test_rpc).
 * Debian's libgrpc, libgpr, libupb and libabsl are not built with -fsanitize=thread: they synchronize through atomics
 * and absl::Mutex that TSan cannot see, so every hand-off between gRPC's threads (its executor, timer and poller
 * threads) and ours through a completion queue looks like a race: about 430 reports in one test_rpc run, inside
 * absl's deadlock graph (GraphCycles), slice buffers, arenas and chttp2, or on buffers that gpr_malloc/gpr_realloc
 * (or a std::string inside gRPC: czk is C and calls no libstdc++ itself) filled on a gRPC thread and that we read or
 * free after grpc_completion_queue_pluck/next returned them. A report is suppressed only when one of its stacks passes
 * through those libraries; races between our own threads (accept thread, call threads, clients, the engine) are
 * still reported. Use-after-free or double free in our use of gRPC
 * would still be caught by the ASan build, which runs the same test. */
__attribute__((visibility("default"))) const char *__tsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__tsan_default_suppressions(void) {
  return "race:libgrpc.so\n"
         "race:libgpr.so\n"
         "race:libupb.so\n"
         "race:libabsl_\n"
         "race:libstdc++.so\n";
}
#endif

static gpr_timespec deadline_ms(uint64_t ms) {
  if (ms == 0) return gpr_inf_future(GPR_CLOCK_REALTIME);
  return gpr_time_add(gpr_now(GPR_CLOCK_REALTIME), gpr_time_from_millis((int64_t)ms, GPR_TIMESPAN));
}

static int grpc_init_once(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, grpc_init);
  return 0;
}

/* Copy a byte buffer into one malloc'd block. */
static int bb_read(grpc_byte_buffer *bb, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (!bb) return 0;
  grpc_byte_buffer_reader rd;
  if (!grpc_byte_buffer_reader_init(&rd, bb)) return -1;
  grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
  grpc_byte_buffer_reader_destroy(&rd);
  size_t n = GRPC_SLICE_LENGTH(s);
  uint8_t *p = malloc(n ? n : 1);
  if (!p) {
    grpc_slice_unref(s);
    return -1;
  }
  memcpy(p, GRPC_SLICE_START_PTR(s), n);
  grpc_slice_unref(s);
  *out = p;
  *len = n;
  return 0;
}

static grpc_byte_buffer *bb_make(const uint8_t *p, size_t n) {
  grpc_slice s = grpc_slice_from_copied_buffer((const char *)p, n);
  grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
  grpc_slice_unref(s);
  return bb;
}

static bool run_batch(grpc_call *call, grpc_completion_queue *cq, const grpc_op *ops, size_t n) {
  void *tag = (void *)ops;
  if (grpc_call_start_batch(call, ops, n, tag, NULL) != GRPC_CALL_OK) return false;
  grpc_event ev = grpc_completion_queue_pluck(cq, tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
  return ev.type == GRPC_OP_COMPLETE && ev.success;
}

static void call_free(rpc_call *c) {
  if (c->call) grpc_call_unref(c->call);
  grpc_call_details_destroy(&c->details);
  grpc_metadata_array_destroy(&c->md);
  if (c->cq) {
    grpc_completion_queue_shutdown(c->cq);
    grpc_completion_queue_destroy(c->cq);
  }
  free(c);
}

static void *call_thread(void *arg) {
  rpc_call *c = arg;
  czk__rpc_server *srv = c->srv;
  char method[256];
  size_t mlen = GRPC_SLICE_LENGTH(c->details.method);
  if (mlen >= sizeof method) mlen = sizeof method - 1;
  memcpy(method, GRPC_SLICE_START_PTR(c->details.method), mlen);
  method[mlen] = 0;

  grpc_byte_buffer *req_bb = NULL;
  grpc_op rop;
  memset(&rop, 0, sizeof rop);
  rop.op = GRPC_OP_RECV_MESSAGE;
  rop.data.recv_message.recv_message = &req_bb;
  bool ok = run_batch(c->call, c->cq, &rop, 1);

  int code = CZK_GRPC_INTERNAL;
  uint8_t *req = NULL, *resp = NULL;
  size_t req_len = 0, resp_len = 0;
  char *err = NULL;
  if (!ok) {
    code = CZK_GRPC_CANCELLED;
  } else if (bb_read(req_bb, &req, &req_len) != 0) {
    code = CZK_GRPC_RESOURCE_EXHAUSTED;
  } else {
    /* the handler reads our copy: gRPC's buffer goes now, so that a request is held once while it is decoded */
    grpc_byte_buffer_destroy(req_bb);
    req_bb = NULL;
    /* learn of the client going away while the handler runs (a blocked AwaitProof must not keep its call slot) */
    grpc_op cop;
    memset(&cop, 0, sizeof cop);
    cop.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    cop.data.recv_close_on_server.cancelled = &c->cancelled;
    c->close_started = grpc_call_start_batch(c->call, &cop, 1, &c->close_tag, NULL) == GRPC_CALL_OK;
    c->req = req;
    c->req_len = req_len;
    __atomic_add_fetch(&g_req_held, req_len, __ATOMIC_RELAXED);
    tl_call = c;
    code = srv->handler(srv->user, method, req, req_len, &resp, &resp_len, &err);
    czk__rpc_release_request(); /* unless the handler did */
    tl_call = NULL;
    req = NULL;
  }
  if (req_bb) grpc_byte_buffer_destroy(req_bb);
  free(req);

  grpc_byte_buffer *resp_bb = NULL;
  grpc_op ops[4];
  memset(ops, 0, sizeof ops);
  size_t nops = 0;
  ops[nops++].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (code == CZK_GRPC_OK) {
    resp_bb = bb_make(resp, resp_len);
    ops[nops].op = GRPC_OP_SEND_MESSAGE;
    ops[nops++].data.send_message.send_message = resp_bb;
  }
  grpc_slice details = grpc_slice_from_copied_string(err ? err : (code == CZK_GRPC_OK ? "" : "error"));
  ops[nops].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[nops].data.send_status_from_server.status = (grpc_status_code)code;
  ops[nops++].data.send_status_from_server.status_details = &details;
  int cancelled = 0;
  /* fault site (tests): the response is lost on the way out, as when the socket write fails; the call ends cancelled
   * on both sides, the server frees it as usual, and the job behind it (if any) is untouched */
  if (czk_fault("rpc.write"))
    grpc_call_cancel_with_status(c->call, GRPC_STATUS_UNAVAILABLE, "injected fault: response write failed", NULL);
  if (!c->close_started) {
    ops[nops].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[nops++].data.recv_close_on_server.cancelled = &cancelled;
  }
  run_batch(c->call, c->cq, ops, nops);
  if (c->close_started && !c->close_done) /* completes now that the status went out (or the call was cancelled) */
    grpc_completion_queue_pluck(c->cq, &c->close_tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
  grpc_slice_unref(details);
  if (resp_bb) grpc_byte_buffer_destroy(resp_bb);
  free(resp);
  free(err);
  call_free(c);

  pthread_mutex_lock(&srv->mu);
  srv->live_calls--;
  pthread_cond_broadcast(&srv->cv);
  pthread_mutex_unlock(&srv->mu);
  return NULL;
}

static void *accept_thread(void *arg) {
  czk__rpc_server *srv = arg;
  for (;;) {
    pthread_mutex_lock(&srv->mu);
    while (!srv->stopping && srv->live_calls >= srv->max_calls) pthread_cond_wait(&srv->cv, &srv->mu);
    int stopping = srv->stopping;
    pthread_mutex_unlock(&srv->mu);
    if (stopping) break;

    rpc_call *c = calloc(1, sizeof *c);
    if (!c) break;
    c->srv = srv;
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    c->cq = grpc_completion_queue_create_for_pluck(NULL);
    if (grpc_server_request_call(srv->server, &c->call, &c->details, &c->md, c->cq, srv->cq, c) != GRPC_CALL_OK) {
      call_free(c);
      break;
    }
    grpc_event ev = grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) {
      call_free(c);
      break;
    }
    if (ev.tag == k_shutdown_tag) {
      /* server shutdown completed before our request: the request completes next with success = 0 */
      ev = grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
      call_free(c);
      break;
    }
    if (!ev.success) {
      call_free(c);
      break;
    }
    pthread_mutex_lock(&srv->mu);
    srv->live_calls++;
    pthread_mutex_unlock(&srv->mu);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, call_thread, c) != 0) {
      pthread_mutex_lock(&srv->mu);
      srv->live_calls--;
      pthread_mutex_unlock(&srv->mu);
      grpc_call_cancel(c->call, NULL);
      call_free(c);
    }
    pthread_attr_destroy(&attr);
  }
  return NULL;
}

/* The socket path may be replaced only when nothing is there or it is a stale socket (no one accepts on it): a live
 * daemon's socket is never taken over ("another czk daemon serves ..."), and a file that is not a socket is never
 * removed. */
static czk_status claim_unix_path(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0) {
    if (errno == ENOENT) return CZK_OK;
    CZK_ERROR("rpc", "cannot use %s: %s", path, strerror(errno));
    return CZK_ERR_IO;
  }
  if (!S_ISSOCK(sb.st_mode)) {
    CZK_ERROR("rpc", "%s exists and is not a socket: refusing to replace it", path);
    return CZK_ERR_EXISTS;
  }
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) return CZK_ERR_INVALID_ARG;
  memcpy(a.sun_path, path, strlen(path));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return CZK_ERR_IO;
  int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
  int e = errno;
  close(fd);
  if (rc == 0 || (e != ECONNREFUSED && e != ENOENT)) {
    CZK_ERROR("rpc", "another czk daemon serves %s: not taking it over", path);
    return CZK_ERR_EXISTS;
  }
  unlink(path); /* a stale socket from a run that did not stop cleanly */
  return CZK_OK;
}

const char *czk__rpc_address(const char *addr, char *buf, size_t n) {
  if (!addr || strncmp(addr, "http://", 7) != 0) return addr; /* plaintext only: czk serves no TLS */
  const char *hp = addr + 7;
  size_t len = strlen(hp);
  while (len && hp[len - 1] == '/') len--; /* http://host:port/ */
  if (len >= n) return addr;
  memcpy(buf, hp, len);
  buf[len] = 0;
  return buf;
}

/* Create the missing directories above a socket path (mode 0755: the socket's own mode decides who may connect;
 * group and others may not create or remove entries there). Existing ones are left as they are. */
static czk_status make_parent_dirs(const char *path) {
  char dir[4096];
  size_t len = strlen(path);
  if (len >= sizeof dir) return CZK_ERR_INVALID_ARG;
  memcpy(dir, path, len + 1);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return CZK_OK;
  *slash = 0;
  struct stat sb;
  if (stat(dir, &sb) == 0) return CZK_OK;
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != 0) continue;
    char c = *p;
    *p = 0;
    if (mkdir(dir, 0755) == 0) {
      chmod(dir, 0755); /* whatever the umask (systemd units often set 0077): others must reach the socket */
      CZK_INFO("rpc", "created %s for the socket", dir);
    } else if (errno != EEXIST) {
      CZK_ERROR("rpc", "cannot create %s for the socket: %s", dir, strerror(errno));
      return CZK_ERR_IO;
    }
    *p = c;
    if (!c) break;
  }
  return CZK_OK;
}

czk_status czk__rpc_server_start(czk__rpc_server **out, const char *listen, size_t max_message_bytes,
                                unsigned max_calls, czk__rpc_handler handler, void *user) {
  czk__rpc_socket_opts o = {0600, -1};
  return czk__rpc_server_start_ex(out, listen, &o, max_message_bytes, max_calls, handler, user);
}

czk_status czk__rpc_server_start_ex(czk__rpc_server **out, const char *listen, const czk__rpc_socket_opts *sock,
                                   size_t max_message_bytes, unsigned max_calls, czk__rpc_handler handler,
                                   void *user) {
  *out = NULL;
  if (!listen || !handler || !sock || (sock->mode & ~0777u)) return CZK_ERR_INVALID_ARG;
  char abuf[512];
  listen = czk__rpc_address(listen, abuf, sizeof abuf);
  grpc_init_once();
  czk__rpc_server *s = calloc(1, sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  s->handler = handler;
  s->user = user;
  s->max_calls = max_calls ? max_calls : 256;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);

  grpc_arg args[2];
  memset(args, 0, sizeof args);
  args[0].type = GRPC_ARG_INTEGER;
  args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
  args[0].value.integer = (int)max_message_bytes;
  args[1].type = GRPC_ARG_INTEGER;
  args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
  args[1].value.integer = (int)max_message_bytes;
  grpc_channel_args cargs = {2, args};
  s->server = grpc_server_create(&cargs, NULL);
  s->cq = grpc_completion_queue_create_for_next(NULL);
  grpc_server_register_completion_queue(s->server, s->cq, NULL);

  /* gRPC takes unix:PATH and unix://ABSOLUTE_PATH (and unlinks whatever is at the path itself) */
  const char *upath = strncmp(listen, "unix://", 7) == 0 ? listen + 7 : strncmp(listen, "unix:", 5) == 0 ? listen + 5 : NULL;
  if (upath) {
    const char *path = upath;
    czk_status cst = make_parent_dirs(path);
    if (cst == CZK_OK) cst = claim_unix_path(path);
    if (cst != CZK_OK) {
      grpc_server_destroy(s->server);
      grpc_completion_queue_shutdown(s->cq);
      grpc_completion_queue_destroy(s->cq);
      free(s);
      return cst;
    }
    s->unix_path = strdup(path);
  }
  mode_t old_mask = umask(0077); /* the unix socket is created owner-only */
  grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
  int port = grpc_server_add_http2_port(s->server, listen, creds);
  grpc_server_credentials_release(creds);
  umask(old_mask);
  if (port == 0) {
    CZK_ERROR("rpc", "cannot listen on %s", listen);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    grpc_completion_queue_destroy(s->cq);
    free(s->unix_path);
    free(s);
    return CZK_ERR_IO;
  }
  /* created owner-only above; the group first, then the wider mode, so it is never open to more than configured */
  bool perms_ok = true;
  if (s->unix_path && sock->gid >= 0 && chown(s->unix_path, (uid_t)-1, (gid_t)sock->gid) != 0) {
    CZK_ERROR("rpc", "cannot give %s to group %ld: %s (the daemon's user must be a member)", s->unix_path, sock->gid,
              strerror(errno));
    perms_ok = false;
  } else if (s->unix_path && chmod(s->unix_path, (mode_t)sock->mode) != 0) {
    CZK_ERROR("rpc", "cannot set mode %03o on %s: %s", sock->mode, s->unix_path, strerror(errno));
    perms_ok = false;
  }
  if (!perms_ok) {
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    grpc_completion_queue_destroy(s->cq);
    unlink(s->unix_path);
    free(s->unix_path);
    free(s);
    return CZK_ERR_IO;
  }
  grpc_server_start(s->server);
  if (pthread_create(&s->accept_thread, NULL, accept_thread, s) != 0) {
    grpc_server_shutdown_and_notify(s->server, s->cq, k_shutdown_tag);
    grpc_server_cancel_all_calls(s->server);
    grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    grpc_completion_queue_destroy(s->cq);
    free(s->unix_path);
    free(s);
    return CZK_ERR_NOMEM;
  }
  *out = s;
  return CZK_OK;
}

unsigned czk__rpc_server_live_calls(czk__rpc_server *s) {
  if (!s) return 0;
  pthread_mutex_lock(&s->mu);
  unsigned n = s->live_calls;
  pthread_mutex_unlock(&s->mu);
  return n;
}

void czk__rpc_server_stop(czk__rpc_server *s) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->stopping = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  grpc_server_shutdown_and_notify(s->server, s->cq, k_shutdown_tag);
  pthread_join(s->accept_thread, NULL);
  /* Calls in flight get a grace period to send their replies (the engine was shut down first, so blocked awaits have
   * returned); whatever is still open after it is cancelled, which completes its batches. */
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += 2;
  pthread_mutex_lock(&s->mu);
  while (s->live_calls > 0)
    if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) != 0) break;
  pthread_mutex_unlock(&s->mu);
  grpc_server_cancel_all_calls(s->server);
  pthread_mutex_lock(&s->mu);
  while (s->live_calls > 0) pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  /* drain the server queue: the shutdown tag (unless the accept thread consumed it) */
  grpc_completion_queue_shutdown(s->cq);
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
  }
  grpc_server_destroy(s->server);
  grpc_completion_queue_destroy(s->cq);
  if (s->unix_path) unlink(s->unix_path);
  free(s->unix_path);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
}

czk_status czk__rpc_call(const char *target, const char *method, const uint8_t *req, size_t req_len,
                        uint64_t timeout_ms, size_t max_message_bytes, int *grpc_code, uint8_t **resp,
                        size_t *resp_len, char **err) {
  *resp = NULL;
  *resp_len = 0;
  *err = NULL;
  *grpc_code = CZK_GRPC_UNKNOWN;
  grpc_init_once();
  char abuf[512];
  target = czk__rpc_address(target, abuf, sizeof abuf);
  grpc_arg args[2];
  memset(args, 0, sizeof args);
  args[0].type = GRPC_ARG_INTEGER;
  args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
  args[0].value.integer = (int)max_message_bytes;
  args[1].type = GRPC_ARG_INTEGER;
  args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
  args[1].value.integer = (int)max_message_bytes;
  grpc_channel_args cargs = {2, args};
  grpc_channel_credentials *creds = grpc_insecure_credentials_create();
  grpc_channel *ch = grpc_channel_create(target, creds, &cargs);
  grpc_channel_credentials_release(creds);
  if (!ch) return CZK_ERR_IO;
  grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
  grpc_slice mslice = grpc_slice_from_copied_string(method);
  grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL,
                                             deadline_ms(timeout_ms), NULL);
  grpc_slice_unref(mslice);

  grpc_byte_buffer *send_bb = bb_make(req, req_len);
  grpc_byte_buffer *recv_bb = NULL;
  grpc_metadata_array init_md, trail_md;
  grpc_metadata_array_init(&init_md);
  grpc_metadata_array_init(&trail_md);
  grpc_status_code st = GRPC_STATUS_UNKNOWN;
  grpc_slice details = grpc_empty_slice();
  grpc_op ops[6];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = send_bb;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &recv_bb;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.status = &st;
  ops[5].data.recv_status_on_client.status_details = &details;
  ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
  czk_status rc = CZK_OK;
  if (!run_batch(call, cq, ops, 6)) rc = CZK_ERR_IO;
  *grpc_code = (int)st;
  if (GRPC_SLICE_LENGTH(details)) {
    size_t n = GRPC_SLICE_LENGTH(details);
    *err = malloc(n + 1);
    if (*err) {
      memcpy(*err, GRPC_SLICE_START_PTR(details), n);
      (*err)[n] = 0;
    }
  }
  if (rc == CZK_OK && st == GRPC_STATUS_OK && bb_read(recv_bb, resp, resp_len) != 0) rc = CZK_ERR_NOMEM;
  if (recv_bb) grpc_byte_buffer_destroy(recv_bb);
  grpc_byte_buffer_destroy(send_bb);
  grpc_slice_unref(details);
  grpc_metadata_array_destroy(&init_md);
  grpc_metadata_array_destroy(&trail_md);
  grpc_call_unref(call);
  grpc_completion_queue_shutdown(cq);
  grpc_completion_queue_destroy(cq);
  grpc_channel_destroy(ch);
  return rc;
}
