// A store backend that hands every call to another one: the base of the
// tests' backends that count or change one call and keep the rest.
#pragma once

#include "store/backend/store_backend.h"

#include <memory>
#include <string>
#include <vector>

namespace dumpsyms::test {

class ForwardingBackend : public StoreBackend {
public:
  explicit ForwardingBackend(std::unique_ptr<StoreBackend> inner) : inner_(std::move(inner)) {}
  std::string describe() const override { return inner_->describe(); }
  std::string publicName() const override { return inner_->publicName(); }
  llvm::Expected<std::optional<StoredObjectInfo>> stat(const std::string& relative) override {
    return inner_->stat(relative);
  }
  llvm::Expected<OpenedObject> open(const std::string& relative) override {
    return inner_->open(relative);
  }
  llvm::Expected<std::string> readRange(const std::string& relative, uint64_t offset,
                                        uint64_t length) override {
    return inner_->readRange(relative, offset, length);
  }
  llvm::Expected<std::vector<std::string>> listNames(const std::string& relative_dir) override {
    return inner_->listNames(relative_dir);
  }
  std::string spoolDirectory() const override { return inner_->spoolDirectory(); }
  llvm::Expected<PublishOutcome> publish(const std::string& relative, const std::string& spooled,
                                         bool replace) override {
    return inner_->publish(relative, spooled, replace);
  }
  llvm::Error remove(const std::string& relative) override { return inner_->remove(relative); }

private:
  std::unique_ptr<StoreBackend> inner_;
};

} // namespace dumpsyms::test
