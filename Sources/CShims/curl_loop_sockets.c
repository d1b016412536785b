#include "curl_loop_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

// The loop's epoll registrations of curl's sockets (see ib_curl_socket in curl_loop_internal.h):
// curl's socket callback, and the open and close callbacks that tell the loop when a descriptor,
// and with it its registration, came and went.

// The record of descriptor `fd`, made on first use.
static ib_curl_socket *socket_for(ib_curl_loop *loop, curl_socket_t fd) {
    if (fd < 0) return NULL;
    if (fd >= loop->socket_capacity) {
        int capacity = loop->socket_capacity ? loop->socket_capacity : 64;
        while (capacity <= fd) capacity *= 2;
        ib_curl_socket **grown = realloc(loop->sockets, (size_t)capacity * sizeof *grown);
        if (!grown) return NULL;
        memset(grown + loop->socket_capacity, 0, (size_t)(capacity - loop->socket_capacity) * sizeof *grown);
        loop->sockets = grown;
        loop->socket_capacity = capacity;
    }
    if (!loop->sockets[fd]) {
        ib_curl_socket *made = calloc(1, sizeof *made);
        if (!made) return NULL;
        made->fd = fd;
        loop->sockets[fd] = made;
    }
    return loop->sockets[fd];
}

static int epoll_change(ib_curl_loop *loop, int operation, ib_curl_socket *entry, uint32_t events) {
    __atomic_fetch_add(&loop->epoll_changes, 1, __ATOMIC_RELAXED);
    struct epoll_event event = {.events = events, .data.u64 = event_data(entry)};
    return epoll_ctl(loop->epoll_fd, operation, entry->fd, &event);
}

// Watches `entry` for `events`. A registration the loop believes in may have left with a closed
// descriptor of the same number (one curl closed without close_socket, as its resolver's): then
// it is added again.
static int watch(ib_curl_loop *loop, ib_curl_socket *entry, uint32_t events) {
    if (entry->events) {
        if (epoll_change(loop, EPOLL_CTL_MOD, entry, events) == 0) {
            entry->events = events;
            return 0;
        }
        if (errno != ENOENT) return -1;
    }
    if (epoll_change(loop, EPOLL_CTL_ADD, entry, events) != 0
        && (errno != EEXIST || epoll_change(loop, EPOLL_CTL_MOD, entry, events) != 0)) return -1;
    entry->events = events;
    return 0;
}

void ib_curl_loop_unwatch(ib_curl_loop *loop, ib_curl_socket *entry) {
    if (!entry->events) return;
    epoll_change(loop, EPOLL_CTL_DEL, entry, 0);  // ENOENT or EBADF: it had already left
    entry->events = 0;
}

int ib_curl_loop_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
    ib_curl_callback_data *data = userp;
    ib_curl_socket *entry = socketp ? socketp : socket_for(data->loop, fd);
    if (!entry) return -1;
    if (what == CURL_POLL_REMOVE) {
        entry->watched = 0;
        // Only the socket of the connection curl keeps for the transfer's next use stays
        // registered: curl closes that one through close_socket. Any other may close unseen (its
        // resolver's; a connection attempt that never completed, which curl 7.88 closes with a
        // plain close), and its number come back as a descriptor the loop wrongly thinks watched.
        curl_socket_t kept = CURL_SOCKET_BAD;
        if (entry->opened && entry->events == EPOLLIN && easy) curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &kept);
        if (kept != fd) {
            ib_curl_loop_unwatch(data->loop, entry);
            entry->opened = 0;
        }
        return 0;
    }
    uint32_t events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= EPOLLOUT;
    entry->slot = data->slot;
    entry->watched = 1;
    if (!socketp) curl_multi_assign(data->slot->multi, fd, entry);
    // An idle keep-alive connection taken by the next transfer: still registered as it was.
    if (entry->opened && entry->events == events) return 0;
    return watch(data->loop, entry, events);
}

// A socket of this number opened or closed: no registration the record knew is its (a closed
// descriptor takes its own out of the epoll set), and a new generation stops stale events.
static void renew(ib_curl_socket *entry, int opened) {
    entry->generation++;
    entry->events = 0;
    entry->watched = 0;
    entry->opened = opened;
}

// curl's connections open and close their sockets here (ib_curl_loop_adopt), so the loop knows
// when a registration left the epoll set with its descriptor.
static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    curl_socket_t fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd == CURL_SOCKET_BAD) return CURL_SOCKET_BAD;
    ib_curl_socket *made = socket_for(clientp, fd);
    if (!made) {
        close(fd);
        return CURL_SOCKET_BAD;
    }
    renew(made, 1);
    return fd;
}

static int close_socket(void *clientp, curl_socket_t fd) {
    ib_curl_loop *loop = clientp;
    if (fd >= 0 && fd < loop->socket_capacity && loop->sockets[fd]) renew(loop->sockets[fd], 0);
    return close(fd);
}

void ib_curl_loop_adopt(ib_curl_loop *loop, CURL *easy) {
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, loop);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, loop);
}

int ib_curl_loop_registration_mismatches(ib_curl_loop *loop) {
    // The kernel's own list of the set (/proc/self/fdinfo/EPFD: "tfd: FD events: HEX data: HEX").
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", loop->epoll_fd);
    FILE *info = fopen(path, "r");
    if (!info) return -1;
    int mismatches = 0;
    int seen_capacity = loop->socket_capacity;
    char *seen = calloc((size_t)(seen_capacity > 0 ? seen_capacity : 1), 1);
    char line[256];
    while (fgets(line, sizeof line, info)) {
        int fd;
        unsigned events;
        unsigned long long data;
        if (sscanf(line, "tfd: %d events: %x data: %llx", &fd, &events, &data) != 3) continue;
        if ((uint64_t)data == wake_event) continue;
        ib_curl_socket *entry = fd >= 0 && fd < loop->socket_capacity ? loop->sockets[fd] : NULL;
        // Registered as the loop believes: its events and its current generation.
        if (!entry || entry->events != (events & (EPOLLIN | EPOLLOUT)) || event_data(entry) != (uint64_t)data) mismatches++;
        if (entry && seen) seen[fd] = 1;
    }
    fclose(info);
    for (int fd = 0; fd < loop->socket_capacity; fd++) {
        ib_curl_socket *entry = loop->sockets[fd];
        // Believed registered but absent, or wanted by curl and registered by nobody.
        if (entry && (entry->events || entry->watched) && !(seen && seen[fd])) mismatches++;
    }
    free(seen);
    return mismatches;
}

uint64_t ib_curl_loop_epoll_changes(ib_curl_loop *loop) {
    return __atomic_load_n(&loop->epoll_changes, __ATOMIC_RELAXED);
}
