/*
 * curl-floor.c: what libcurl alone costs per HTTP request, with imgbench's loop design and none
 * of its pipeline, so scripts/user-cost can show imgbench's users between wrk and libcurl's floor.
 *
 * Usage: curl-floor USERS PER_USER SECONDS URLFILE     (URLFILE: one full URL per line)
 *
 * USERS multi handles (one per simulated user, each with a connection cache of its own, as
 * imgbench's users), each keeping PER_USER transfers in flight, HTTP/1.1 keep-alive, cycling the
 * URL list; one thread, one epoll set, curl_multi_socket_action (curl's hiperfifo shape, as
 * Sources/CShims/curl_loop.c). Easy handles are reused with imgbench's options for discarded
 * bodies (64 kB buffer, TCP_NODELAY, NOSIGNAL, no proxy, URLs parsed once), idle keep-alive
 * connections left in the epoll set between transfers. It runs flat out, where imgbench's users
 * scroll: only the CPU per request compares. Prints one line:
 *   requests=N bytes=B cpu_user=U cpu_sys=S cpu_per_1000=X errors=E
 *
 * Build: gcc -O2 -o curl-floor curl-floor.c -lcurl
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct user {
  CURLM *multi;
  int idx;
  int64_t deadline_ms;   /* -1: no timer */
  int next_url;
  int touched;
};

/* Each descriptor's epoll registration, by number. An idle keep-alive connection stays registered
   between its transfers, as in Sources/CShims/curl_loop.c: curl's connections open and close their
   sockets here (open_cb, close_cb), so a registration is known to have left with its descriptor. */
struct fdstate {
  struct user *u;
  uint32_t events;       /* registered for; 0: not registered */
  int watched;           /* curl wants its events (0: idle in a pool) */
  int opened;            /* by open_cb, not closed since: its close will be heard of */
};

static int epfd;
static char **urls;
static int nurls;
/* Each URL parsed once and handed to transfers with CURLOPT_CURLU, as imgbench's network
   thread does (ParsedURLs.swift): curl parses a text URL afresh for every request. */
static CURLU **parsed;
static struct fdstate *fds;
static int fds_cap;

static struct fdstate *fd_state(curl_socket_t s)
{
  if(s >= fds_cap) {
    int cap = fds_cap ? fds_cap : 1024;
    while(cap <= s) cap *= 2;
    fds = realloc(fds, (size_t)cap * sizeof(*fds));
    if(!fds) { perror("realloc"); exit(1); }
    memset(fds + fds_cap, 0, (size_t)(cap - fds_cap) * sizeof(*fds));
    fds_cap = cap;
  }
  return &fds[s];
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t discard_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
  (void)ptr; (void)ud;
  return size * nmemb;
}

static curl_socket_t open_cb(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
  (void)clientp; (void)purpose;
  curl_socket_t s = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
  if(s != CURL_SOCKET_BAD) { struct fdstate *st = fd_state(s); st->events = 0; st->watched = 0; st->opened = 1; }
  return s;
}

static int close_cb(void *clientp, curl_socket_t s)
{
  (void)clientp;
  struct fdstate *st = fd_state(s);
  st->events = 0;       /* closing takes it out of the epoll set */
  st->watched = 0;
  st->opened = 0;
  return close(s);
}

static int sock_cb(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
  struct user *u = userp;
  struct fdstate *st = fd_state(s);
  (void)socketp;

  if(what == CURL_POLL_REMOVE) {
    st->watched = 0;
    /* Only the socket of the connection curl keeps for reuse stays registered (curl closes it
       through close_cb); any other may close unseen: curl's resolver's, or a connection attempt
       that never completed (closed without close_cb). */
    curl_socket_t kept = CURL_SOCKET_BAD;
    if(st->opened && st->events == EPOLLIN)
      curl_easy_getinfo(e, CURLINFO_ACTIVESOCKET, &kept);
    if(kept != s) {
      if(st->events)
        epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
      st->events = 0;
      st->opened = 0;
    }
    return 0;
  }
  uint32_t events = 0;
  if(what & CURL_POLL_IN)  events |= EPOLLIN;
  if(what & CURL_POLL_OUT) events |= EPOLLOUT;
  st->u = u;
  st->watched = 1;
  if(st->opened && st->events == events)
    return 0;
  struct epoll_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.events = events;
  ev.data.fd = s;
  int op = st->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if(epoll_ctl(epfd, op, s, &ev) < 0) {
    /* fall back if our bookkeeping disagrees with the kernel */
    if(op == EPOLL_CTL_ADD && errno == EEXIST)
      op = EPOLL_CTL_MOD;
    else if(op == EPOLL_CTL_MOD && errno == ENOENT)
      op = EPOLL_CTL_ADD;
    else { perror("epoll_ctl"); exit(1); }
    if(epoll_ctl(epfd, op, s, &ev) < 0) { perror("epoll_ctl retry"); exit(1); }
  }
  st->events = events;
  return 0;
}

static int timer_cb(CURLM *m, long timeout_ms, void *userp)
{
  struct user *u = userp;
  (void)m;
  u->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
  return 0;
}

static void set_next_url(struct user *u, CURL *e)
{
  curl_easy_setopt(e, CURLOPT_CURLU, parsed[u->next_url]);
  u->next_url = (u->next_url + 1) % nurls;
}

static double tv_sec(struct timeval tv)
{
  return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
  if(argc != 5) {
    fprintf(stderr, "usage: %s USERS PER_USER SECONDS URLFILE\n", argv[0]);
    return 2;
  }
  int nusers = atoi(argv[1]);
  int per_user = atoi(argv[2]);
  double seconds = atof(argv[3]);
  if(nusers <= 0 || per_user <= 0 || seconds <= 0) {
    fprintf(stderr, "bad arguments\n");
    return 2;
  }

  /* read URL list */
  FILE *f = fopen(argv[4], "r");
  if(!f) { perror(argv[4]); return 1; }
  char line[4096];
  int cap = 0;
  while(fgets(line, sizeof(line), f)) {
    size_t n = strcspn(line, "\r\n");
    line[n] = 0;
    if(!n) continue;
    if(nurls == cap) {
      cap = cap ? cap * 2 : 256;
      urls = realloc(urls, cap * sizeof(*urls));
      if(!urls) { perror("realloc"); return 1; }
    }
    urls[nurls++] = strdup(line);
  }
  fclose(f);
  if(!nurls) { fprintf(stderr, "no URLs in %s\n", argv[4]); return 1; }

  if(curl_global_init(CURL_GLOBAL_DEFAULT)) { fprintf(stderr, "curl_global_init failed\n"); return 1; }
  parsed = calloc(nurls, sizeof(*parsed));
  if(!parsed) { perror("calloc"); return 1; }
  for(int k = 0; k < nurls; k++) {
    parsed[k] = curl_url();
    if(!parsed[k] || curl_url_set(parsed[k], CURLUPART_URL, urls[k], CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)) {
      fprintf(stderr, "cannot parse %s\n", urls[k]);
      return 1;
    }
  }
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if(epfd < 0) { perror("epoll_create1"); return 1; }

  struct user *users = calloc(nusers, sizeof(*users));
  CURL **easies = calloc((size_t)nusers * per_user, sizeof(*easies));
  int *touched = calloc(nusers, sizeof(*touched));
  if(!users || !easies || !touched) { perror("calloc"); return 1; }

  for(int i = 0; i < nusers; i++) {
    struct user *u = &users[i];
    u->idx = i;
    u->deadline_ms = -1;
    u->next_url = (int)(((long long)i * 7) % nurls);
    u->multi = curl_multi_init();
    curl_multi_setopt(u->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
    curl_multi_setopt(u->multi, CURLMOPT_SOCKETDATA, u);
    curl_multi_setopt(u->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(u->multi, CURLMOPT_TIMERDATA, u);
    for(int j = 0; j < per_user; j++) {
      CURL *e = curl_easy_init();
      if(!e) { fprintf(stderr, "curl_easy_init failed\n"); return 1; }
      curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_cb);
      curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 65536L);
      curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
      curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(e, CURLOPT_PROXY, "");
      curl_easy_setopt(e, CURLOPT_NOPROXY, "");
      curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)u);
      curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_cb);
      curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
      easies[(size_t)i * per_user + j] = e;
    }
  }

  long long requests = 0, errors = 0;
  long long bytes = 0;
  int running;
  struct epoll_event evs[512];

  /* ---- timed part ---- */
  struct rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  int64_t t0 = now_ms();
  int64_t t_end = t0 + (int64_t)(seconds * 1000.0);

  for(int i = 0; i < nusers; i++)
    for(int j = 0; j < per_user; j++) {
      CURL *e = easies[(size_t)i * per_user + j];
      set_next_url(&users[i], e);
      curl_multi_add_handle(users[i].multi, e);
    }

  for(;;) {
    int64_t now = now_ms();
    if(now >= t_end)
      break;

    int64_t wait = t_end - now;
    for(int i = 0; i < nusers; i++) {
      int64_t d = users[i].deadline_ms;
      if(d >= 0 && d - now < wait)
        wait = d - now;
    }
    if(wait < 0)
      wait = 0;

    int ntouched = 0;
    int n = epoll_wait(epfd, evs, sizeof(evs) / sizeof(evs[0]), (int)wait);
    if(n < 0) {
      if(errno == EINTR) continue;
      perror("epoll_wait");
      return 1;
    }
    for(int k = 0; k < n; k++) {
      curl_socket_t s = evs[k].data.fd;
      struct fdstate *st = fd_state(s);
      if(!st->watched) {
        /* idle in a pool and readable (its server closed it): let go until curl wants it */
        epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
        st->events = 0;
        continue;
      }
      struct user *u = st->u;
      int fl = 0;
      if(evs[k].events & (EPOLLIN | EPOLLHUP)) fl |= CURL_CSELECT_IN;
      if(evs[k].events & EPOLLOUT) fl |= CURL_CSELECT_OUT;
      if(evs[k].events & EPOLLERR) fl |= CURL_CSELECT_ERR;
      curl_multi_socket_action(u->multi, s, fl, &running);
      if(!u->touched) { u->touched = 1; touched[ntouched++] = u->idx; }
    }

    /* expired timers */
    now = now_ms();
    for(int i = 0; i < nusers; i++) {
      struct user *u = &users[i];
      if(u->deadline_ms >= 0 && u->deadline_ms <= now) {
        u->deadline_ms = -1;   /* callback may set a new one */
        curl_multi_socket_action(u->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        if(!u->touched) { u->touched = 1; touched[ntouched++] = i; }
      }
    }

    /* completed transfers: count, then reuse handle for next URL */
    for(int t = 0; t < ntouched; t++) {
      struct user *u = &users[touched[t]];
      u->touched = 0;
      CURLMsg *msg;
      int left;
      while((msg = curl_multi_info_read(u->multi, &left))) {
        if(msg->msg != CURLMSG_DONE)
          continue;
        CURL *e = msg->easy_handle;
        CURLcode rc = msg->data.result;   /* read before removing */
        long code = 0;
        curl_off_t dl = 0;
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &dl);
        if(rc == CURLE_OK && code == 200) {
          requests++;
          bytes += dl;
        }
        else {
          errors++;
          if(errors <= 5)
            fprintf(stderr, "error: curl=%d (%s) http=%ld\n",
                    (int)rc, curl_easy_strerror(rc), code);
        }
        curl_multi_remove_handle(u->multi, e);
        set_next_url(u, e);
        curl_multi_add_handle(u->multi, e);
      }
    }
  }

  getrusage(RUSAGE_SELF, &ru1);
  int64_t t1 = now_ms();
  /* ---- end of timed part ---- */

  double cu = tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime);
  double cs = tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime);
  double per1000 = requests ? (cu + cs) * 1000.0 / requests : 0.0;
  printf("requests=%lld bytes=%lld cpu_user=%.3f cpu_sys=%.3f cpu_per_1000=%.4f errors=%lld\n",
         requests, bytes, cu, cs, per1000, errors);
  fprintf(stderr, "wall=%.3fs req/s=%.0f\n", (t1 - t0) / 1000.0,
          requests / ((t1 - t0) / 1000.0));
  fflush(stdout);

  /* In-flight transfers are abandoned: the process ends here. */
  return 0;
}
