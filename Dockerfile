# The suite in a container: NVIDIA's CUDA 13.0 devel image (Ubuntu 24.04), the dependencies, a
# build with the ci preset and the CPU tests run at build time. Run the labs with a GPU:
#   docker build -t cuda-labs . && docker run --rm --gpus all cuda-labs ./build-ci/labs/rgba_split 3840 2160
FROM nvidia/cuda:13.0.0-devel-ubuntu24.04
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
COPY . /opt/cuda-labs
WORKDIR /opt/cuda-labs
RUN ./scripts/install-deps.sh && cmake --preset ci && cmake --build --preset ci && ctest --preset ci -L cpu
