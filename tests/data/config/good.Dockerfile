# syntax=docker/dockerfile:1
FROM egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com/egslingjun/training-nv-pytorch:25.09-serverless
ENV CHECKPOINT_OPTIMIZATION=true NCCL_SOCKET_IFNAME=eth0
RUN pip install --no-cache-dir -U sentencepiece "datasets>=2.19" && \
    pip install wandb
CMD ["torchrun", "--nproc_per_node=8", "train.py"]
