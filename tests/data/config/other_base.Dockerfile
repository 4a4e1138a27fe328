FROM ubuntu:24.04
RUN pip install torch
