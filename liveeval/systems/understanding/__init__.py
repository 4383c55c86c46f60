"""Reading booking requests in Chinese and English (see ``reading.read``)."""
