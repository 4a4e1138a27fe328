FROM egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com/egslingjun/training-nv-pytorch:25.09-serverless
RUN pip install --upgrade torch==2.5.1
