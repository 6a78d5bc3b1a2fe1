// leveldb::NewBloomFilterPolicy(int) for LD_PRELOAD: whatever leveldb a program has (linked,
// dlopen'ed privately, or another copy bundled by a Python or Node.js package), each call gets
// the shim's policy where the shim can build one for that leveldb, and that leveldb's own
// otherwise.
//
// Preloaded, this library comes before every leveldb, so every call to NewBloomFilterPolicy made
// through a PLT comes here. It needs nothing from leveldb to load (it brings none into a process,
// unlike a DT_NEEDED would), and it serves each caller the shim compiled for the C++ string ABI
// of the leveldb that caller would otherwise reach, since CreateFilter appends to that leveldb's
// std::string. Where it cannot tell that ABI, it hands the call on to that leveldb.
// LEVELDB_BLOOM_SHIM_DEBUG=1 makes it say on stderr, per call, what it did and why.

#include <dlfcn.h>
#include <leveldb/filter_policy.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// leveldb_bloom_shim.cc, compiled once with each string ABI (_GLIBCXX_USE_CXX11_ABI=1, =0).
extern "C" const leveldb::FilterPolicy* leveldb_bloom_shim_policy_cxx11(int bits_per_key);
extern "C" const leveldb::FilterPolicy* leveldb_bloom_shim_policy_cow(int bits_per_key);

namespace leveldb {

// FilterPolicy's key function, empty as in every leveldb: defined here, it gives this library a
// vtable and type information of its own for FilterPolicy, so that neither the shim's vtables nor
// its destructors refer to a leveldb symbol, which would have to be found when the library loads,
// before a program dlopens its leveldb. libstdc++ compares type information by name, so typeid
// and dynamic_cast still see the shim's policy as a leveldb::FilterPolicy.
FilterPolicy::~FilterPolicy() = default;

}  // namespace leveldb

namespace {

using Factory = const leveldb::FilterPolicy* (*)(int);

constexpr char kNewBloomFilterPolicy[] = "_ZN7leveldb20NewBloomFilterPolicyEi";

// leveldb::DB::Open(const Options&, const std::string&, DB**): every leveldb defines it, and its
// mangled name says which std::string that leveldb was compiled with.
constexpr char kOpenCxx11[] =
    "_ZN7leveldb2DB4OpenERKNS_7OptionsERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEPPS0_";
constexpr char kOpenCow[] = "_ZN7leveldb2DB4OpenERKNS_7OptionsERKSsPPS0_";

// The loaded object holding `address`, or nullptr.
link_map* ObjectAt(const void* address) {
  Dl_info info;
  void* object = nullptr;
  if (dladdr1(address, &info, &object, RTLD_DL_LINKMAP) == 0) return nullptr;
  return static_cast<link_map*>(object);
}

const char* NameOf(const link_map* object) {
  if (object == nullptr) return "an unknown object";
  return object->l_name[0] != '\0' ? object->l_name : "the program";
}

// With LEVELDB_BLOOM_SHIM_DEBUG=1, says on stderr whose policy a call got, and why.
void Say(int bits_per_key, const link_map* caller, const char* whose, const link_map* library,
         const char* why) {
  const char* debug = std::getenv("LEVELDB_BLOOM_SHIM_DEBUG");
  if (debug == nullptr || std::strcmp(debug, "1") != 0) return;
  std::fprintf(stderr, "leveldb-bloom: NewBloomFilterPolicy(%d) from %s: %s%s (%s)\n", bits_per_key,
               NameOf(caller), whose, NameOf(library), why);
}

// Whether `object` itself defines `symbol`. An object's handle looks in the object first, then in
// what it was loaded with; the program's looks in the global scope, which starts with it.
bool Defines(link_map* object, const char* symbol) {
  const bool program = object->l_name[0] == '\0';
  void* handle = dlopen(program ? nullptr : object->l_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  const void* address = dlsym(handle, symbol);
  dlclose(handle);
  return address != nullptr && ObjectAt(address) == object;
}

// The NewBloomFilterPolicy that `caller` would reach without this library, or nullptr: the dynamic
// linker looks in the global scope (this library comes right after the program there), then in
// the caller's own, which holds the leveldb a module was dlopen'ed with privately (RTLD_LOCAL).
void* NextDefinition(link_map* caller) {
  void* next = dlsym(RTLD_NEXT, kNewBloomFilterPolicy);
  if (next == nullptr && caller != nullptr && caller->l_name[0] != '\0') {
    void* handle = dlopen(caller->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle != nullptr) {
      next = dlsym(handle, kNewBloomFilterPolicy);
      dlclose(handle);
    }
  }
  // A caller linked to this library itself finds it in its own scope: that is no leveldb.
  static const link_map* const self = ObjectAt(reinterpret_cast<const void*>(&NameOf));
  return next != nullptr && ObjectAt(next) != self ? next : nullptr;
}

}  // namespace

namespace leveldb {

__attribute__((visibility("default"))) const FilterPolicy* NewBloomFilterPolicy(int bits_per_key) {
  link_map* caller = ObjectAt(__builtin_return_address(0));
  void* next = NextDefinition(caller);
  if (next == nullptr) {
    // Without this library the call could not have been made (only a weak reference gets here):
    // there is no leveldb to tell the policy's std::string by.
    std::fprintf(stderr, "leveldb-bloom: NewBloomFilterPolicy called from %s, which has no leveldb\n",
                 NameOf(caller));
    std::abort();
  }
  link_map* library = ObjectAt(next);
  const bool cxx11 = Defines(library, kOpenCxx11);
  const bool cow = Defines(library, kOpenCow);
  if (cxx11 != cow) {
    Say(bits_per_key, caller, "the shim's policy, for ", library,
        cxx11 ? "C++11 std::string" : "pre-C++11 copy-on-write std::string");
    return (cxx11 ? leveldb_bloom_shim_policy_cxx11 : leveldb_bloom_shim_policy_cow)(bits_per_key);
  }
  Say(bits_per_key, caller, "leveldb's own policy, from ", library,
      cxx11 ? "it defines leveldb::DB::Open for both std::string ABIs"
            : "no libstdc++ std::string in its leveldb::DB::Open: its string ABI is unknown");
  return reinterpret_cast<Factory>(next)(bits_per_key);
}

}  // namespace leveldb
