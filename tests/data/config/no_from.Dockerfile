RUN pip install torch
CMD ["bash"]
