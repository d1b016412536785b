#include "cshims.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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

// The epoll registration of one socket: which multi it belongs to.
typedef struct {
    ib_curl_slot *slot;
    curl_socket_t fd;
    int closed;            // curl removed it; freed at the end of the round that did
} ib_curl_socket;

struct ib_curl_loop {
    int epoll_fd;
    int wake_fd;
    ib_curl_slot **slots;
    int slot_count;
    int slot_capacity;
    // Sockets curl removed during a round: an event later in the same epoll batch may still
    // point at one, so they are freed only when the round is over.
    ib_curl_socket **closed;
    int closed_count;
    int closed_capacity;
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
    for (int i = 0; i < loop->closed_count; i++) free(loop->closed[i]);
    free(loop->closed);
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

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
    (void)easy;
    ib_curl_callback_data *data = userp;
    ib_curl_socket *registered = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (registered) {
            ib_curl_loop *loop = data->loop;
            epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
            curl_multi_assign(data->slot->multi, fd, NULL);
            registered->closed = 1;
            if (loop->closed_count == loop->closed_capacity) {
                int capacity = loop->closed_capacity ? loop->closed_capacity * 2 : 16;
                ib_curl_socket **grown = realloc(loop->closed, (size_t)capacity * sizeof *grown);
                if (!grown) return -1;
                loop->closed = grown;
                loop->closed_capacity = capacity;
            }
            loop->closed[loop->closed_count++] = registered;
        }
        return 0;
    }
    struct epoll_event event = {0};
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) event.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) event.events |= EPOLLOUT;
    if (!registered) {
        registered = malloc(sizeof *registered);
        if (!registered) return -1;
        registered->slot = data->slot;
        registered->fd = fd;
        registered->closed = 0;
        event.data.ptr = registered;
        if (epoll_ctl(data->loop->epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
            free(registered);
            return -1;
        }
        curl_multi_assign(data->slot->multi, fd, registered);
    } else {
        event.data.ptr = registered;
        if (epoll_ctl(data->loop->epoll_fd, EPOLL_CTL_MOD, fd, &event) != 0) return -1;
    }
    return 0;
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
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
        ib_curl_slot *slot = registered->slot;
        if (registered->closed) continue;
        if (!slot->multi) {
            // A socket of a detached multi that curl never removed: stop watching it (a readable
            // one would wake every wait).
            epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, registered->fd, NULL);
            continue;
        }
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
    for (int i = 0; i < loop->closed_count; i++) free(loop->closed[i]);
    loop->closed_count = 0;
    return count;
}
