// SHA-256 (FIPS 180-4), for content-addressed cache keys and entry checksums.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::runtime {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::array<uint8_t, 32> digest();  // finishes; the object is spent
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  uint64_t length_ = 0;
  size_t buffered_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace kiln::runtime
