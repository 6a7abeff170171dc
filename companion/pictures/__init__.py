"""The recap pictures: what they say comes from companion/core/recap.py; here they are
drawn (``drawing``, ``lettering``: Pillow) and served (``views``)."""
