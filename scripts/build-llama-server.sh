#!/usr/bin/env bash
# Build llama.cpp's own llama-server from the llama-cpp-python sdist on PyPI (the same llama.cpp
# the record extra uses). ctxlab uses it for experiments that measure the provider's prompt
# cache (E4): unlike llama-cpp-python's server, it reports cached prompt tokens.
# Needs cmake and a C++ compiler; takes about 5 minutes on 2 cores. Output:
#   ~/.cache/ctxlab/llama-server/llama-server   (or $CTXLAB_LLAMA_SERVER)
set -euo pipefail
version="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
out="${CTXLAB_LLAMA_SERVER:-$HOME/.cache/ctxlab/llama-server/llama-server}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$work" "llama-cpp-python==$version"
tar xzf "$work/llama_cpp_python-$version.tar.gz" -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DBUILD_SHARED_LIBS=OFF
cmake --build "$src/build" --target llama-server -j"$(nproc)"
mkdir -p "$(dirname "$out")"
cp "$src/build/bin/llama-server" "$out"
echo "built $out"
"$out" --version 2>&1 | head -2
