#include "cshims.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// One thread drives the transfers of many curl multi handles (one per simulated user, so each user
// keeps connections of its own) through one epoll set: curl's socket interface
// (curl_multi_socket_action) with a socket callback that keeps epoll in step and a timer callback
// per multi. The shape is curl's hiperfifo example, for many multis at once. Used only from the
// loop's thread, but for ib_curl_loop_wakeup.

typedef struct ib_curl_slot {
    CURLM *multi;
    int64_t deadline_ms;   // curl's next timeout for this multi, -1 for none
    int touched;           // driven in the current round (reported once)
    int index;             // its place in the loop's slots
} ib_curl_slot;

// The epoll registration of one descriptor, kept by its number for as long as the loop lives (so
// an event still in a batch never points at freed memory). A keep-alive connection between loads
// stays registered: curl says "remove" when its transfer ends and "watch" when the next one takes
// the connection, and answering both with epoll_ctl cost two system calls a request (1.95 a
// request in a --clients 100 run, about 5% of the network thread's time).
typedef struct {
    ib_curl_slot *slot;    // the multi whose transfer last wanted it
    curl_socket_t fd;
    uint32_t events;       // what epoll watches it for; 0: not registered, as far as the loop knows
    int watched;           // curl wants its events; 0: idle in a pool (left registered) or closed
    int opened;            // opened by open_socket and not closed since: a registration it has is
                           // still its own (a closed descriptor leaves the epoll set with it)
} ib_curl_socket;

struct ib_curl_loop {
    int epoll_fd;
    int wake_fd;
    ib_curl_slot **slots;
    int slot_count;
    int slot_capacity;
    ib_curl_socket **sockets;  // by descriptor number
    int socket_capacity;
    uint64_t epoll_changes;    // epoll_ctl calls made for curl's sockets (read by tests)
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ib_curl_loop *ib_curl_loop_new(void) {
    ib_curl_loop *loop = calloc(1, sizeof *loop);
    if (!loop) return NULL;
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->epoll_fd < 0 || loop->wake_fd < 0) {
        if (loop->epoll_fd >= 0) close(loop->epoll_fd);
        if (loop->wake_fd >= 0) close(loop->wake_fd);
        free(loop);
        return NULL;
    }
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};  // NULL: the wake-up fd
    epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->wake_fd, &event);
    return loop;
}

void ib_curl_loop_free(ib_curl_loop *loop) {
    if (!loop) return;
    for (int i = 0; i < loop->slot_count; i++) free(loop->slots[i]);
    free(loop->slots);
    for (int i = 0; i < loop->socket_capacity; i++) free(loop->sockets[i]);
    free(loop->sockets);
    close(loop->epoll_fd);
    close(loop->wake_fd);
    free(loop);
}

void ib_curl_loop_wakeup(ib_curl_loop *loop) {
    uint64_t one = 1;
    ssize_t written = write(loop->wake_fd, &one, sizeof one);
    (void)written;  // EAGAIN: a wake-up is already pending, which is all this asks
}

typedef struct {
    ib_curl_loop *loop;
    ib_curl_slot *slot;
} ib_curl_callback_data;

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
    struct epoll_event event = {.events = events, .data.ptr = entry};
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

static void unwatch(ib_curl_loop *loop, ib_curl_socket *entry) {
    if (!entry->events) return;
    epoll_change(loop, EPOLL_CTL_DEL, entry, 0);  // ENOENT or EBADF: it had already left
    entry->events = 0;
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
    (void)easy;
    ib_curl_callback_data *data = userp;
    ib_curl_socket *entry = socketp ? socketp : socket_for(data->loop, fd);
    if (!entry) return -1;
    if (what == CURL_POLL_REMOVE) {
        entry->watched = 0;
        // Left registered if the loop will hear of its close; otherwise (the resolver's) its
        // number could come back as another descriptor the loop wrongly thinks registered.
        if (!entry->opened) unwatch(data->loop, entry);
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
    // A new descriptor: nothing registered is its.
    made->events = 0;
    made->watched = 0;
    made->opened = 1;
    return fd;
}

static int close_socket(void *clientp, curl_socket_t fd) {
    ib_curl_loop *loop = clientp;
    if (fd >= 0 && fd < loop->socket_capacity && loop->sockets[fd]) {
        ib_curl_socket *closing = loop->sockets[fd];
        closing->events = 0;  // closing it takes it out of the epoll set
        closing->watched = 0;
        closing->opened = 0;
    }
    return close(fd);
}

void ib_curl_loop_adopt(ib_curl_loop *loop, CURL *easy) {
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, loop);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, loop);
}

uint64_t ib_curl_loop_epoll_changes(ib_curl_loop *loop) {
    return __atomic_load_n(&loop->epoll_changes, __ATOMIC_RELAXED);
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    ib_curl_callback_data *data = userp;
    if (!data->slot->multi) return 0;  // detached: its cleanup may still set timers, never to run
    data->slot->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    return 0;
}

int ib_curl_loop_attach(ib_curl_loop *loop, CURLM *multi) {
    if (loop->slot_count == loop->slot_capacity) {
        int capacity = loop->slot_capacity ? loop->slot_capacity * 2 : 16;
        ib_curl_slot **grown = realloc(loop->slots, (size_t)capacity * sizeof *grown);
        if (!grown) return -1;
        loop->slots = grown;
        loop->slot_capacity = capacity;
    }
    // The slot and the callbacks' data live together, as long as the loop.
    struct { ib_curl_slot slot; ib_curl_callback_data data; } *both = calloc(1, sizeof *both);
    if (!both) return -1;
    both->slot.multi = multi;
    both->slot.deadline_ms = -1;
    both->slot.index = loop->slot_count;
    both->data.loop = loop;
    both->data.slot = &both->slot;
    loop->slots[loop->slot_count] = &both->slot;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &both->data);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &both->data);
    return loop->slot_count++;
}

void ib_curl_loop_detach(ib_curl_loop *loop, int index) {
    if (index < 0 || index >= loop->slot_count) return;
    loop->slots[index]->deadline_ms = -1;
    loop->slots[index]->multi = NULL;
}

static void touch(ib_curl_slot *slot, int *touched, int *count, int capacity) {
    if (slot->touched || *count >= capacity) return;
    slot->touched = 1;
    touched[(*count)++] = slot->index;
}

int ib_curl_loop_run_once(ib_curl_loop *loop, int max_wait_ms, int *touched, int capacity) {
    int64_t now = now_ms();
    int64_t wait = max_wait_ms;
    for (int i = 0; i < loop->slot_count; i++) {
        int64_t deadline = loop->slots[i]->deadline_ms;
        if (!loop->slots[i]->multi) continue;
        if (deadline >= 0 && deadline - now < wait) wait = deadline > now ? deadline - now : 0;
    }
    enum { batch = 64 };
    struct epoll_event events[batch];
    int ready = epoll_wait(loop->epoll_fd, events, batch, (int)wait);
    if (ready < 0 && errno != EINTR) return -1;
    int count = 0;
    for (int i = 0; i < ready; i++) {
        ib_curl_socket *registered = events[i].data.ptr;
        if (!registered) {
            uint64_t drained;
            ssize_t got = read(loop->wake_fd, &drained, sizeof drained);
            (void)got;
            continue;
        }
        ib_curl_slot *slot = registered->slot;
        if (!registered->watched || !slot || !slot->multi) {
            // Idle in curl's pool (its server closed it, most likely) or of a multi that left:
            // watched again when curl wants it, and a readable one would wake every wait.
            unwatch(loop, registered);
            continue;
        }
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
        int running = 0;
        curl_multi_socket_action(slot->multi, registered->fd, mask, &running);
        touch(slot, touched, &count, capacity);
    }
    now = now_ms();
    for (int i = 0; i < loop->slot_count; i++) {
        ib_curl_slot *slot = loop->slots[i];
        if (!slot->multi || slot->deadline_ms < 0 || slot->deadline_ms > now) continue;
        slot->deadline_ms = -1;  // the timer callback sets the next one
        int running = 0;
        curl_multi_socket_action(slot->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        touch(slot, touched, &count, capacity);
    }
    for (int i = 0; i < count; i++) loop->slots[touched[i]]->touched = 0;
    return count;
}
