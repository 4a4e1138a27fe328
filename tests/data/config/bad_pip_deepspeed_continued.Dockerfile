FROM egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com/egslingjun/training-nv-pytorch:25.09-serverless AS base
WORKDIR /workspace

FROM base
RUN apt-get update && \
    python -m pip install --no-cache-dir \
      transformers \
      DeepSpeed==0.14.0
