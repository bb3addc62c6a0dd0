/// @file
/// Training checkpoints for camber::nn in HDF5: the model's parameters by
/// name, the optimizer's state, the trainer's epoch count, history and
/// shuffling RNG state. Written atomically (camber::io::H5File writes
/// "<path>.tmp" and renames it when complete), so a run killed while
/// writing leaves the previous checkpoint intact.
///
/// @code
///   trainer.on_epoch([&](const nn::EpochRecord&) {
///     nn::io::save_checkpoint("run/checkpoint.h5", *net, opt, trainer, comm);
///   });
///   if (std::filesystem::exists("run/checkpoint.h5"))
///     nn::io::load_checkpoint("run/checkpoint.h5", *net, opt, trainer, comm);
///   trainer.fit(shard);   // continues after the checkpoint's epoch
/// @endcode
///
/// A resumed run reaches the same weights as an uninterrupted one bit for
/// bit (tests/nn: a run killed part-way and resumed). Loading checks the
/// format and version and every parameter's name, shape and dtype against
/// the model; a mismatch is an error naming the file and the parameter.
/// Values are stored as float64 (float32 parameters convert exactly).
#pragma once

#include <mpi.h>

#include <string>

#include <camber/nn/module.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/trainer.hpp>

namespace camber::nn::io {

void save_checkpoint(const std::string& path, const Module& model, const Optimizer& optimizer,
                     const Trainer& trainer, MPI_Comm comm);
void load_checkpoint(const std::string& path, Module& model, Optimizer& optimizer,
                     Trainer& trainer, MPI_Comm comm);
/// Only the model's parameters from a checkpoint (inference, or a trained
/// network used as an op), with the same checks.
void load_parameters(const std::string& path, Module& model, MPI_Comm comm);

}  // namespace camber::nn::io
