// libFuzzer target for the model-file reader: any text either loads as a
// model or is refused with InvalidArgument naming the origin. Anything else
// (a crash, a sanitizer report, another exception, a hang) is a bug.
#include "core/errors.h"
#include "core/model_io.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    try {
        const remat::ModelFile file = remat::parseModelJson(text, "fuzz.json");
        // What the reader promises of a model it accepts.
        const remat::Model &m = file.model;
        if (m.layers() < 1)
            std::abort();
        for (int i = 0; i < m.forwardCount(); ++i)
            if (m.bytes(m.forwardNode(i)) < 1 || m.bytes(m.backwardNode(i)) < 1 || !(m.cost(m.forwardNode(i)) >= 0))
                std::abort();
    } catch (const remat::InvalidArgument &e) {
        if (std::string_view(e.what()).substr(0, 11) != "fuzz.json: ")
            std::abort(); // every refusal names the file
    }
    return 0;
}
