#pragma once

#include <QString>

namespace stb {

// The bundled sample checkpoint (the Qt resource :/sample/sample.safetensors) as a real file,
// since core maps files by path: copied once into the cache folder and reused while unchanged.
// Empty, with a reason in `error`, when the copy cannot be made.
QString samplePath(QString *error = nullptr);

} // namespace stb
