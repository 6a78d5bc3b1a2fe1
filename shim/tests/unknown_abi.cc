// Stands for a leveldb whose C++ string ABI the preloaded shim cannot tell (one built against
// libc++, or one that hides leveldb::DB::Open): a shared library defining NewBloomFilterPolicy
// and no DB::Open. Its policy (every key may match) names itself, so a program linked to it ahead
// of leveldb shows whose policy it was given.

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <string>

namespace {

class UnknownAbiPolicy final : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "leveldb-bloom.test.UnknownAbi"; }
  void CreateFilter(const leveldb::Slice*, int, std::string*) const override {}
  bool KeyMayMatch(const leveldb::Slice&, const leveldb::Slice&) const override { return true; }
};

}  // namespace

namespace leveldb {

const FilterPolicy* NewBloomFilterPolicy(int) { return new UnknownAbiPolicy; }

}  // namespace leveldb
