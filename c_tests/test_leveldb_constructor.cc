// leveldb's constructor, as this library calls it to make leveldb's objects: leveldb's
// `leveldb_filterpolicy_create`, whose `new` this program replaces (operator new is the program's
// to replace, for leveldb's library too). leveldb's C API is loaded with dlopen, privately.
//
// - No lock of this library's is held while it runs: from inside it, another thread makes,
//   queries and destroys a policy of its own, which must finish.
// - If it throws (std::bad_alloc, as when memory runs out), the process aborts, as the header
//   says: a child process, made to throw there, must end by SIGABRT.
//
//   test_leveldb_constructor [LEVELDB_LIB]   (LEVELDB_LIB: libleveldb.so)
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <thread>

extern "C" {
#include "check.h"
}

namespace {

// What the next operator new does beside allocating: nothing, call the library from another
// thread, or throw.
enum class Next { kAllocate, kCallFromAnotherThread, kThrow };
std::atomic<Next> g_next{Next::kAllocate};
// Whether the other thread's calls finished while the constructor waited for them.
std::atomic<bool> g_other_finished{false};

// A policy made, queried by leveldb's names and destroyed, as any thread may at any time.
void make_query_destroy() {
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  const char *key = "key";
  size_t length = 3, filter_length = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, &key, &length, 1, &filter_length);
  bool ok = filter != nullptr && leveldb_filterpolicy_name(policy) != nullptr &&
            leveldb_filterpolicy_key_may_match(policy, key, 3, filter, filter_length) == 1;
  leveldb_free(filter);
  leveldb_filterpolicy_destroy(policy);
  g_other_finished = ok;
}

void call_from_another_thread() {
  std::thread other(make_query_destroy);
  // A lock held by this thread would keep the other waiting for good: give it ample time.
  for (int i = 0; i < 3000 && !g_other_finished; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!g_other_finished) {
    fprintf(stderr, "the other thread did not finish: a lock is held around leveldb's constructor\n");
    _exit(1);
  }
  other.join();
}

}  // namespace

void *operator new(size_t size) {
  switch (g_next.exchange(Next::kAllocate)) {
    case Next::kAllocate:
      break;
    case Next::kCallFromAnotherThread:
      call_from_another_thread();
      break;
    case Next::kThrow:
      throw std::bad_alloc();
  }
  if (void *p = malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}

void operator delete(void *p) noexcept { free(p); }
void operator delete(void *p, size_t) noexcept { free(p); }

int main(int argc, char **argv) {
  const char *library = argc > 1 ? argv[1] : "libleveldb.so";
  void *leveldb = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (leveldb == nullptr) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }

  // Made once first, so that the next one's only operator new is leveldb's constructor's.
  leveldb_filterpolicy_destroy(leveldb_filterpolicy_create_bloom(10));
  g_next = Next::kCallFromAnotherThread;
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  CHECK(g_next == Next::kAllocate);
  CHECK(g_other_finished);
  CHECK(policy != nullptr && leveldb_filterpolicy_name(policy) != nullptr);
  leveldb_filterpolicy_destroy(policy);

  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child == 0) {
    g_next = Next::kThrow;
    leveldb_filterpolicy_create_bloom(10);
    _exit(3);  // Not aborted: this library caught the exception.
  }
  int status = 0;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);

  dlclose(leveldb);
  return finish();
}
